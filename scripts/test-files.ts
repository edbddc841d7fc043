/**
 * Which files `npm test` runs, which tools each declares it needs
 * (`// test-needs: chromium, nginx, redis` on its first lines), and which use the
 * builds the tests share. scripts/test.ts runs them;
 * test/scripts/commands.test.ts checks the declarations with the same reader.
 */
import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'

/** Every `*.test.ts` under `dir` (fixtures and dot folders left out), relative to `root`. */
export function testFiles(root: string, dir = path.join(root, 'test')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return entry.name.startsWith('.') || entry.name === 'fixtures' ? [] : testFiles(root, full)
    return entry.name.endsWith('.test.ts') ? [path.relative(root, full)] : []
  })
}

/** The tools a test file declares on its first lines. */
export function needsOf(root: string, file: string): string[] {
  const head = readFileSync(path.resolve(root, file), 'utf8').slice(0, 500)
  const declared = /^\/\/ test-needs: ([a-z, ]+)$/m.exec(head)?.[1] ?? ''
  return declared.split(',').map((name) => name.trim()).filter(Boolean)
}

/**
 * True when a test file uses a build the tests can share: it starts the application
 * (`listenTestApp`, or `createTestApp` in the process) or the built server
 * (`buildDist`), or builds a client (`buildFor`). A file that builds some other way is
 * still correct: it builds in its own process.
 */
export function usesSharedBuilds(root: string, file: string): boolean {
  return /\b(listenTestApp|createTestApp|buildDist|buildFor)\(/.test(readFileSync(path.resolve(root, file), 'utf8'))
}
