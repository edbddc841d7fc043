/**
 * A stable fingerprint of an unexpected error, so the digest a user reads finds the log
 * line. Line and column numbers are dropped, so two builds still agree when unrelated code moves.
 */

const STACK_FRAMES = 5

function fingerprint(error: unknown): string {
  if (!(error instanceof Error)) return `non-error:${String(error)}`
  const frames = (error.stack ?? '')
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .slice(0, STACK_FRAMES)
    .map((line) =>
      line
        .trim()
        .replace(/:\d+:\d+\)?$/, '')
        .replace(/\?[^\s)]*/, ''),
    )
  return [error.name, describe(error), ...frames].join('\n')
}

/** A system error's message names the paths it failed on (`/tmp/upload-<uuid>`), which change between occurrences. */
function describe(error: Error & { path?: unknown; dest?: unknown }): string {
  let message = error.message
  for (const named of [error.path, error.dest]) if (typeof named === 'string' && named !== '') message = message.split(named).join('<path>')
  return message
}

/** cyrb53: a fast 53-bit hash, plenty for telling bugs apart. */
function hash53(text: string): number {
  let h1 = 0xdeadbeef
  let h2 = 0x41c6ce57
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i)
    h1 = Math.imul(h1 ^ ch, 2654435761)
    h2 = Math.imul(h2 ^ ch, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return 4294967296 * (2097151 & h2) + (h1 >>> 0)
}

/** Up to 11 base-36 characters. */
export function digestOf(error: unknown): string {
  return hash53(fingerprint(error)).toString(36)
}
