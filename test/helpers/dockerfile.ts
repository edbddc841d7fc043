/**
 * A small Dockerfile reader, enough for the tests to check what the project's
 * Dockerfile promises without a container engine: instructions (comments dropped,
 * backslash continuations joined), grouped into stages at each FROM, with the exec
 * (JSON array) form of CMD, ENTRYPOINT and HEALTHCHECK read as an argument list, and
 * ENV read as variables (both `ENV A=1 B=2` and the old `ENV A 1`).
 */
import { readFileSync } from 'node:fs'

export interface Instruction {
  /** Upper case: FROM, RUN, COPY, ... */
  readonly keyword: string
  /** Everything after the keyword, continuations joined with a space. */
  readonly args: string
  /** The line the instruction starts on (1-based). */
  readonly line: number
}

export interface Stage {
  /** The `AS` name, if any. */
  readonly name: string | undefined
  /** The image it starts from (ARG references left as written). */
  readonly from: string
  /** Its instructions after FROM. */
  readonly instructions: readonly Instruction[]
}

export interface Dockerfile {
  /** Instructions before the first FROM (ARG only, in a valid file). */
  readonly preamble: readonly Instruction[]
  readonly stages: readonly Stage[]
}

export function parseDockerfile(text: string): Dockerfile {
  const instructions: Instruction[] = []
  let pending: { parts: string[]; line: number } | undefined
  text.split(/\r?\n/).forEach((raw, index) => {
    const trimmed = raw.trim()
    // A comment or blank line never ends an instruction: Docker skips them inside continuations too.
    if (trimmed === '' || trimmed.startsWith('#')) return
    const continues = trimmed.endsWith('\\')
    const part = continues ? trimmed.slice(0, -1).trim() : trimmed
    if (pending) pending.parts.push(part)
    else pending = { parts: [part], line: index + 1 }
    if (continues) return
    const joined = pending.parts.filter(Boolean).join(' ')
    const match = /^(\S+)\s*(.*)$/s.exec(joined)!
    instructions.push({ keyword: match[1]!.toUpperCase(), args: match[2]!.trim(), line: pending.line })
    pending = undefined
  })
  if (pending) throw new Error(`line ${pending.line}: the file ends inside a continued instruction`)

  const preamble: Instruction[] = []
  const stages: Array<{ name: string | undefined; from: string; instructions: Instruction[] }> = []
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const words = instruction.args.split(/\s+/).filter((word) => !word.startsWith('--'))
      const as = words.findIndex((word) => word.toUpperCase() === 'AS')
      stages.push({ from: words[0]!, name: as === -1 ? undefined : words[as + 1], instructions: [] })
    } else if (stages.length === 0) {
      preamble.push(instruction)
    } else {
      stages.at(-1)!.instructions.push(instruction)
    }
  }
  return { preamble, stages }
}

export function readDockerfile(file: string): Dockerfile {
  return parseDockerfile(readFileSync(file, 'utf8'))
}

/** The instructions of a stage with this keyword, in order. */
export function instructionsOf(stage: Stage, keyword: string): Instruction[] {
  return stage.instructions.filter((instruction) => instruction.keyword === keyword)
}

/**
 * The exec form of CMD/ENTRYPOINT/RUN (a JSON array of strings), or undefined for the
 * shell form. `args` may start with options (HEALTHCHECK's `--interval=...`): pass
 * what follows them.
 */
export function execForm(args: string): string[] | undefined {
  if (!args.startsWith('[')) return undefined
  const parsed: unknown = JSON.parse(args)
  if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === 'string')) {
    throw new Error(`not a JSON array of strings: ${args}`)
  }
  return parsed
}

/** HEALTHCHECK's options and its command (`NONE` gives no command). */
export function healthcheckOf(args: string): { options: Record<string, string>; command: string[] | string | undefined } {
  const options: Record<string, string> = {}
  let rest = args
  for (let option = /^--([\w-]+)=(\S+)\s*/.exec(rest); option; option = /^--([\w-]+)=(\S+)\s*/.exec(rest)) {
    options[option[1]!] = option[2]!
    rest = rest.slice(option[0].length)
  }
  if (/^NONE$/i.test(rest)) return { options, command: undefined }
  const command = /^CMD\s+(.*)$/is.exec(rest)
  if (!command) throw new Error(`HEALTHCHECK without CMD: ${args}`)
  return { options, command: execForm(command[1]!) ?? command[1]! }
}

/** Splits shell-like words: quoted stretches (double, single) may sit anywhere in a word and are unquoted. */
function words(text: string): string[] {
  const found: string[] = []
  const word = /(?:[^\s"']+|"(?:[^"\\]|\\.)*"|'[^']*')+/g
  for (const [raw] of text.matchAll(word)) {
    found.push(
      raw.replace(/"((?:[^"\\]|\\.)*)"|'([^']*)'/g, (_all, double?: string, single?: string) =>
        double !== undefined ? double.replace(/\\(.)/g, '$1') : single!,
      ),
    )
  }
  return found
}

/** The variables a stage's ENV instructions set, later ones winning. */
export function envOf(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {}
  for (const { args } of instructionsOf(stage, 'ENV')) {
    const parts = words(args)
    if (parts.length > 0 && !parts[0]!.includes('=')) {
      // The legacy form: `ENV NAME value with spaces`.
      env[parts[0]!] = args.slice(args.indexOf(parts[0]!) + parts[0]!.length).trim()
      continue
    }
    for (const part of parts) {
      const equals = part.indexOf('=')
      if (equals <= 0) throw new Error(`ENV: "${part}" is not NAME=value`)
      env[part.slice(0, equals)] = part.slice(equals + 1)
    }
  }
  return env
}

/** The stage a COPY --from=<name|index> refers to. */
export function copiesFrom(instruction: Instruction): string | undefined {
  return /(?:^|\s)--from=(\S+)/.exec(instruction.args)?.[1]
}
