/**
 * A histogram counted in plain numbers and formatted by prom-client only when scraped. prom-client's
 * own `observe`, through a `labels()` child too, checks and hashes the label values and looks the
 * bucket up by its number as a property name on every call; here a series is an object the caller
 * keeps, and an observation a loop over the bounds and two additions. The exposition is
 * prom-client's, line for line (test/server/plain-histogram.test.ts holds it to that).
 */
import type { Registry } from 'prom-client'

/** A sample as prom-client's registry formats it: `labels` (here `le`) first, then the series' own. */
interface Sample {
  readonly metricName: string
  readonly labels: Readonly<Record<string, string | number>>
  readonly sharedLabels?: Readonly<Record<string, string>>
  readonly value: number
  /** prom-client's buckets carry one, null without exemplars; kept so that `getMetricsAsJSON` matches too. */
  readonly exemplar?: null
}

interface Exposed {
  readonly name: string
  readonly help: string
  readonly type: 'histogram'
  readonly aggregator: 'sum'
  readonly values: readonly Sample[]
}

/** One combination of label values: what the hot path holds on to and observes into. */
export class HistogramSeries {
  count = 0
  sum = 0
  /** Observations per bucket, not cumulative; those above the last bound are only in `count`. */
  readonly perBucket: number[]

  constructor(
    readonly labels: Readonly<Record<string, string>>,
    private readonly bounds: readonly number[],
  ) {
    this.perBucket = bounds.map(() => 0)
  }

  observe(value: number): void {
    // A NaN would poison the sum for good; prom-client throws on it, a request must not.
    if (!Number.isFinite(value)) return
    this.count++
    this.sum += value
    const bounds = this.bounds
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        this.perBucket[i]!++
        return
      }
    }
  }
}

interface Config {
  readonly name: string
  readonly help: string
  readonly labelNames: readonly string[]
  readonly buckets: readonly number[]
  readonly registry: Registry
}

export class PlainHistogram {
  readonly type = 'histogram' as const
  readonly aggregator = 'sum' as const
  readonly name: string
  readonly help: string
  private readonly labelNames: readonly string[]
  private readonly bounds: readonly number[]
  /** In the order first asked for, as prom-client lists its series. */
  private readonly series: HistogramSeries[] = []

  constructor(config: Config) {
    this.name = config.name
    this.help = config.help
    this.labelNames = config.labelNames
    this.bounds = [...config.buckets].sort((a, b) => a - b)
    // The registry only calls `get` or `getForPromString` and reads `name`; its type names prom-client's classes.
    config.registry.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0])
  }

  /** A new series; the caller keeps it and asks once per label combination. */
  seriesFor(labels: Readonly<Record<string, string>>): HistogramSeries {
    const ordered: Record<string, string> = {}
    for (const name of this.labelNames) {
      const value = labels[name]
      if (value === undefined) throw new Error(`${this.name}: no value for the label ${name}`)
      ordered[name] = value
    }
    const series = new HistogramSeries(ordered, this.bounds)
    this.series.push(series)
    return series
  }

  /** What prom-client's registry formats; like its own histogram, a series appears from its first observation. */
  async getForPromString(): Promise<Exposed> {
    const bucketName = `${this.name}_bucket`
    const values: Sample[] = []
    for (const series of this.series) {
      if (series.count === 0) continue
      let cumulative = 0
      for (const [i, bound] of this.bounds.entries()) {
        cumulative += series.perBucket[i]!
        values.push({ labels: { le: bound }, sharedLabels: series.labels, value: cumulative, metricName: bucketName, exemplar: null })
      }
      values.push(
        { labels: { le: '+Inf' }, sharedLabels: series.labels, value: series.count, metricName: bucketName, exemplar: null },
        { labels: {}, sharedLabels: series.labels, value: series.sum, metricName: `${this.name}_sum` },
        { labels: {}, sharedLabels: series.labels, value: series.count, metricName: `${this.name}_count` },
      )
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator }
  }

  /** The same, each sample's labels in one object, as prom-client's `getMetricsAsJSON` gives them. */
  async get(): Promise<Exposed> {
    const metric = await this.getForPromString()
    const values = metric.values.map(({ sharedLabels, ...sample }) => ({ ...sample, labels: { ...sample.labels, ...sharedLabels } }))
    return { ...metric, values }
  }

  /** Every series so far, in the order first asked for. */
  all(): readonly HistogramSeries[] {
    return this.series
  }

  /** prom-client's `registry.resetMetrics()`: every series back to nothing observed. */
  reset(): void {
    for (const series of this.series) {
      series.count = 0
      series.sum = 0
      series.perBucket.fill(0)
    }
  }
}
