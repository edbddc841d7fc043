/** The A/B mode's command line (`npm run bench -- --against <ref> [--rounds N] [--only <figure>]...`), apart so a unit test reads it. */
import { parseArgs } from 'node:util'

/** The figures an A/B run measures: name, and the path loaded on each build's server. */
export const AB_FIGURES: ReadonlyArray<{ readonly name: string; readonly path: string }> = [
  { name: '/items/7', path: '/items/7' },
  { name: '/about', path: '/about' },
  { name: '/_data/items/7', path: '/_data/items/7' },
]

export interface AbOptions {
  /** The git ref built as A, the baseline; this checkout is B. */
  readonly against: string
  readonly rounds: number
  /** The figures' names, in AB_FIGURES's order. */
  readonly figures: readonly string[]
}

export const AB_USAGE = `npm run bench -- --against <git ref> [--rounds N (3)] [--only <figure>]... (figures: ${AB_FIGURES.map((f) => f.name).join(', ')})`

/** The A/B options, or undefined when `--against` is absent (the full bench). Throws on anything else wrong. */
export function parseAbArgs(argv: readonly string[]): AbOptions | undefined {
  const { values } = parseArgs({
    args: [...argv],
    options: { against: { type: 'string' }, rounds: { type: 'string' }, only: { type: 'string', multiple: true } },
    strict: true,
  })
  if (values.against === undefined) {
    if (values.rounds !== undefined || values.only !== undefined) throw new Error(`--rounds and --only need --against: ${AB_USAGE}`)
    return undefined
  }
  if (values.against === '') throw new Error(`--against needs a git ref: ${AB_USAGE}`)
  const rounds = Number(values.rounds ?? 3)
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 50) throw new Error(`--rounds takes a whole number from 1 to 50: ${AB_USAGE}`)
  const only = values.only ?? []
  const unknown = only.filter((name) => !AB_FIGURES.some((f) => f.name === name))
  if (unknown.length > 0) throw new Error(`no figure ${unknown.join(', ')}: ${AB_USAGE}`)
  const figures = AB_FIGURES.map((f) => f.name).filter((name) => only.length === 0 || only.includes(name))
  return { against: values.against, rounds, figures }
}
