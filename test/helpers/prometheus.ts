/**
 * Reads a metrics listener as Prometheus does: the text exposition format, every sample line
 * parsed (names, escaped label values, values), every sample's family declared by `# TYPE`.
 * Hand-written: the npm parser merged a labelled histogram's series into one.
 */
export interface Sample {
  /** As written: `http_request_duration_seconds_count`, with its suffix. */
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

export interface Scraped {
  /** Family name -> `counter`, `gauge`, `histogram`, `summary` or `untyped`. */
  readonly types: ReadonlyMap<string, string>
  readonly samples: readonly Sample[]
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(?:,|$)/y
const HISTOGRAM_SUFFIXES = ['_bucket', '_sum', '_count']

export function parseExposition(text: string): Scraped {
  const types = new Map<string, string>()
  const samples: Sample[] = []
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line)
    if (type) types.set(type[1]!, type[2]!)
    if (line.startsWith('#')) continue
    const match = SAMPLE_LINE.exec(line)
    if (!match) throw new Error(`not a sample line: ${line}`)
    const [, name, labelText = '', value] = match
    const labels: Record<string, string> = {}
    LABEL.lastIndex = 0
    while (LABEL.lastIndex < labelText.length) {
      const label = LABEL.exec(labelText)
      if (!label) throw new Error(`bad labels: ${line}`)
      labels[label[1]!] = label[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c))
    }
    const family = [name!, ...HISTOGRAM_SUFFIXES.filter((s) => name!.endsWith(s)).map((s) => name!.slice(0, -s.length))]
    if (!family.some((f) => types.has(f))) throw new Error(`no # TYPE for ${name}`)
    samples.push({ name: name!, labels, value: Number(value === '+Inf' ? Infinity : value) })
  }
  return { types, samples }
}

export async function scrape(origin: string): Promise<Scraped> {
  const response = await fetch(`${origin}/metrics`, { signal: AbortSignal.timeout(10_000) })
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`)
  return parseExposition(await response.text())
}

/** The samples named `name` (with its suffix, for a histogram's `_count`) whose labels include `labels`. */
export function samples(scraped: Scraped, name: string, labels: Readonly<Record<string, string>> = {}): Sample[] {
  return scraped.samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
}

/** The sum of the matching samples' values. */
export function total(scraped: Scraped, name: string, labels: Readonly<Record<string, string>> = {}): number {
  return samples(scraped, name, labels).reduce((sum, sample) => sum + sample.value, 0)
}

/** Scrapes until `check` holds (a response is counted just after the client has it), for up to 15 s. */
export async function scrapeUntil(origin: string, check: (scraped: Scraped) => boolean, what: string): Promise<Scraped> {
  const deadline = Date.now() + 15_000
  for (;;) {
    const scraped = await scrape(origin)
    if (check(scraped)) return scraped
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
