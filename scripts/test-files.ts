/**
 * Which files `npm test` runs, which tools each declares it needs
 * (`// test-needs: chromium, nginx, redis` on its first lines), which builds each
 * uses, and which are in the unit tier (`npm run test:unit`). scripts/test.ts runs
 * them; test/scripts/commands.test.ts checks the declarations with the same reader.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { buildKindOf, type BuildKind, type BuiltApp } from '../test/helpers/build.js'

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
 * The builds a test file uses (test/helpers/build.ts): for each app it starts, the
 * application or the fixture (unless a literal second argument names another, the
 * application), built for the markup (`createTestApp`, `listenTestApp`) or for a
 * browser (`browserTestApp`); each `buildFor('...')`; and the built server for
 * `buildDist`. Read from the text: an app named by a variable is not seen, and is built
 * by the test process itself (correct, only slower).
 */
export function buildsOf(root: string, file: string): BuildKind[] {
  const text = readFileSync(path.resolve(root, file), 'utf8')
  const kinds = new Set<BuildKind>()
  const started = text.matchAll(/\b(createTestApp|listenTestApp|browserTestApp)\(\s*[\w.]+\s*(?:,\s*'(\w+)')?/g)
  for (const [, helper, app] of started) kinds.add(buildKindOf((app ?? 'production') as BuiltApp, helper === 'browserTestApp'))
  for (const [, kind] of text.matchAll(/\bbuildFor\(\s*'([\w-]+)'/g)) kinds.add(kind as BuildKind)
  if (/\bbuildDist\(/.test(text)) kinds.add('dist')
  return [...kinds]
}

/** True when a test file uses a build (`buildsOf`): `npm test` makes those before tap starts. */
export function usesSharedBuilds(root: string, file: string): boolean {
  return buildsOf(root, file).length > 0
}

/**
 * How long a file is expected to take where it has not run before (a fresh clone):
 * the development server's tests longest, then Chromium's, then those that start
 * processes, then the rest. Only the order of a run depends on it.
 */
export function expectedSeconds(root: string, file: string): number {
  const text = readFileSync(path.resolve(root, file), 'utf8')
  if (/helpers\/dev-server\.js'/.test(text)) return 30
  if (needsOf(root, file).includes('chromium')) return 12
  if (!isUnitTier(root, file)) return 6
  return 2
}

/** What marks a module as starting processes: a server, a browser, npm, a copy of the project's commands. */
const STARTS_PROCESSES = /\bfrom '(?:node:)?child_process'|\bfrom 'playwright-core'|\bimport\('(?:node:)?child_process'\)/

/**
 * The unit tier (`npm run test:unit`): the unit tests and the tests that run the app in
 * their own process (Fastify's inject, or a port of their own). A file is in it when it
 * declares no tool (`test-needs`), starts no process (neither it nor any module it
 * imports from test/ (helpers, fixtures), however indirectly, imports child_process or
 * playwright-core; the esbuild service a build starts does not count), and runs on the
 * markup builds only: the builds whose scripts a browser runs, and the deployed server,
 * are the other tier's (test/helpers/build.ts).
 */
export function isUnitTier(root: string, file: string): boolean {
  return (
    needsOf(root, file).length === 0 &&
    buildsOf(root, file).every((kind) => kind.endsWith('-markup')) &&
    !startsProcesses(root, path.resolve(root, file), new Set())
  )
}

function startsProcesses(root: string, module: string, seen: Set<string>): boolean {
  if (seen.has(module)) return false
  seen.add(module)
  const text = readFileSync(module, 'utf8')
  if (STARTS_PROCESSES.test(text)) return true
  const testDir = path.join(root, 'test') + path.sep
  for (const [, specifier, dynamic] of text.matchAll(/\bfrom '(\.{1,2}\/[^']+)'|\bimport\('(\.{1,2}\/[^']+)'\)/g)) {
    const imported = sourceOf(path.resolve(path.dirname(module), (specifier ?? dynamic)!))
    if (imported?.startsWith(testDir) && startsProcesses(root, imported, seen)) return true
  }
  return false
}

/** The source file of an import (`./x.js` is `./x.ts` or `./x.tsx`), if there is one. */
function sourceOf(target: string): string | undefined {
  const base = target.replace(/\.(m?js|jsx)$/, '')
  return [target, `${base}.ts`, `${base}.tsx`, `${base}.mts`].find((candidate) => /\.(m?[jt]sx?)$/.test(candidate) && existsSync(candidate))
}
