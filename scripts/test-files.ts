/**
 * Which files `npm test` runs, which tools each declares it needs
 * (`// test-needs: chromium, nginx, redis` on its first lines), and which builds each
 * uses. scripts/test.ts runs them; test/scripts/commands.test.ts checks the
 * declarations with the same reader.
 */
import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import type { BuildKind } from '../test/helpers/build.js'

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
  return declared
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean)
}

/**
 * The builds a test file uses (test/helpers/build.ts): the application or the fixture
 * for each app it starts (`createTestApp`, `listenTestApp`: the application unless a
 * literal second argument names another), each `buildFor('...')`, and the built server
 * for `buildDist`. Read from the text: an app named by a variable is not seen, and is
 * built by the test process itself (correct, only slower).
 */
export function buildsOf(root: string, file: string): BuildKind[] {
  const text = readFileSync(path.resolve(root, file), 'utf8')
  const kinds = new Set<BuildKind>()
  const started = text.matchAll(/\b(?:createTestApp|listenTestApp)\(\s*[\w.]+\s*(?:,\s*'(\w+)')?/g)
  for (const [, app] of started) kinds.add((app ?? 'production') as BuildKind)
  for (const [, app] of text.matchAll(/\bbuildFor\(\s*'(\w+)'/g)) kinds.add(app as BuildKind)
  if (/\bbuildDist\(/.test(text)) kinds.add('dist')
  return [...kinds]
}

/** True when a test file uses a build (`buildsOf`): `npm test` makes those before tap starts. */
export function usesSharedBuilds(root: string, file: string): boolean {
  return buildsOf(root, file).length > 0
}
