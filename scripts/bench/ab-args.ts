/** The A/B mode's command line (`npm run bench -- --against <ref> [--rounds N] [--only <figure>]... [--env-a|--env-b NAME=VALUE]...`), apart so a unit test reads it. */
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
  /** Environment for one side's server only (A, B): one build with a setting on against the same build with it off. */
  readonly env: readonly [Readonly<Record<string, string>>, Readonly<Record<string, string>>]
}

export const AB_USAGE = `npm run bench -- --against <git ref> [--rounds N (3)] [--only <figure>]... [--env-a NAME=VALUE]... [--env-b NAME=VALUE]... (figures: ${AB_FIGURES.map((f) => f.name).join(', ')})`

/** The A/B options, or undefined when `--against` is absent (the full bench). Throws on anything else wrong. */
export function parseAbArgs(argv: readonly string[]): AbOptions | undefined {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      against: { type: 'string' },
      rounds: { type: 'string' },
      only: { type: 'string', multiple: true },
      'env-a': { type: 'string', multiple: true },
      'env-b': { type: 'string', multiple: true },
    },
    strict: true,
  })
  if (values.against === undefined) {
    if (values.rounds !== undefined || values.only !== undefined || values['env-a'] !== undefined || values['env-b'] !== undefined) {
      throw new Error(`--rounds, --only and --env-a/--env-b need --against: ${AB_USAGE}`)
    }
    return undefined
  }
  if (values.against === '') throw new Error(`--against needs a git ref: ${AB_USAGE}`)
  const rounds = Number(values.rounds ?? 3)
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 50) throw new Error(`--rounds takes a whole number from 1 to 50: ${AB_USAGE}`)
  const only = values.only ?? []
  const unknown = only.filter((name) => !AB_FIGURES.some((f) => f.name === name))
  if (unknown.length > 0) throw new Error(`no figure ${unknown.join(', ')}: ${AB_USAGE}`)
  const figures = AB_FIGURES.map((f) => f.name).filter((name) => only.length === 0 || only.includes(name))
  return { against: values.against, rounds, figures, env: [envOf(values['env-a'] ?? []), envOf(values['env-b'] ?? [])] }
}

function envOf(settings: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {}
  for (const setting of settings) {
    const equals = setting.indexOf('=')
    if (equals < 1) throw new Error(`--env-a and --env-b take NAME=VALUE, not ${setting}: ${AB_USAGE}`)
    env[setting.slice(0, equals)] = setting.slice(equals + 1)
  }
  return env
}
