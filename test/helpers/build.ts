/**
 * The builds tests use, each made once and kept for as long as its inputs stay the same
 * (docs/decisions/023-test-tiers.md):
 *
 * - `production`: the application built for tests: Rollup's chunks, manifest and
 *   stylesheet as a deploy has them, without what only a deploy needs (terser, the
 *   source maps, the `.br`/`.gz` files);
 * - `fixture`: the test-only application (test/fixtures/app/), built the same way;
 * - `deployed`: the application exactly as `npm run build` makes it, for the tests
 *   that assert on what only a deploy has (compression, static assets);
 * - `<each of those>-markup`: the same with the dependencies left as bare imports,
 *   for the tests that read what the server sends and run no script (`createTestApp`,
 *   `listenTestApp`): a build in a third of the time or less. Chromium's tests
 *   (`browserTestApp`) run on the builds whose scripts it can run;
 * - `dist`: `deployed` and the server bundle, laid out as a deploy's dist/ (`buildDist`).
 *
 * A build lives in .cache/test-builds/<kind>-<key>/, where the key is a hash of every
 * file it is made from (TOOLING and SOURCES below). Whoever needs one first makes it:
 * `npm test` before the tests start, for the files it runs (test/helpers/build-process.mjs),
 * or else the test process itself. It is built into a temporary folder beside, then
 * renamed into place: two processes that make the same one at once both succeed, the
 * first rename is kept, and a build is never seen half made. Tests only read builds; a
 * test that needs other files makes its own.
 */
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs'
import { constants as osConstants } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { BuildManifest } from '../../shared/framework/build-manifest.js'

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

/** Where the builds are kept: inside the project, so a server bundle resolves node_modules as a deploy's does. */
export const buildCacheDir = path.join(projectRoot, '.cache/test-builds')

/** What every build is also made from: the build code and its configuration, the locked dependencies. */
const TOOLING = [
  'scripts/build.ts',
  'test/helpers/build.ts',
  'vite.config.ts',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.base.json',
  'tsconfig.client.json',
  'tsconfig.server.json',
]

const APPLICATION = { entry: 'client/entry.tsx', pagesDir: 'client/pages' } as const
const FIXTURE = { entry: 'test/fixtures/app/entry.tsx', pagesDir: 'test/fixtures/app/pages' } as const

/** The client builds a test app can run on; `deployed` is `production` as `npm run build` makes it. */
const CLIENT_BUILDS = {
  'production-markup': { ...APPLICATION, forDeploy: false, bundleDependencies: false },
  production: { ...APPLICATION, forDeploy: false },
  'fixture-markup': { ...FIXTURE, forDeploy: false, bundleDependencies: false },
  fixture: { ...FIXTURE, forDeploy: false },
  'deployed-markup': { ...APPLICATION, forDeploy: true, bundleDependencies: false },
  deployed: { ...APPLICATION, forDeploy: true },
} as const
export type ClientBuildKind = keyof typeof CLIENT_BUILDS
export type BuildKind = ClientBuildKind | 'dist'

/** The apps a test starts: the application, the test-only fixture, the application as deployed. */
export type BuiltApp = 'production' | 'fixture' | 'deployed'

/** The build of `app` a test runs on: the markup build unless a browser runs its scripts. */
export function buildKindOf(app: BuiltApp, forBrowser: boolean): ClientBuildKind {
  return forBrowser ? app : `${app}-markup`
}

/**
 * The folders each build is made from (with TOOLING). A build with source maps that
 * bundled a file from elsewhere fails, naming it (`checkSources`): `deployed`, whose
 * modules are `production`'s, and the server of `dist`. The fixture has no such check:
 * it takes all of test/fixtures/.
 */
const SOURCES: Record<BuildKind, readonly string[]> = {
  'production-markup': ['client', 'shared'],
  production: ['client', 'shared'],
  'fixture-markup': ['client', 'shared', 'test/fixtures'],
  fixture: ['client', 'shared', 'test/fixtures'],
  'deployed-markup': ['client', 'shared'],
  deployed: ['client', 'shared'],
  dist: ['client', 'shared', 'server'],
}

export interface ClientBuild {
  readonly clientDir: string
  readonly manifest: BuildManifest
}

/** An unused build is removed once it is this old and another of its kind was made. */
const KEPT_UNUSED_MS = 60 * 60 * 1000

/**
 * Every file at or under `dir` (relative to `root`), sorted; none if there is none. A
 * folder whose name `skipFolder` says is left out with what it holds.
 */
export function filesUnder(dir: string, root = projectRoot, skipFolder: (name: string) => boolean = () => false): string[] {
  const full = path.join(root, dir)
  const stat = statSync(full, { throwIfNoEntry: false })
  if (!stat?.isDirectory()) return stat?.isFile() ? [dir] : []
  return readdirSync(full, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((entry) => {
      const file = path.join(dir, entry.name)
      if (entry.isDirectory()) return skipFolder(entry.name) ? [] : filesUnder(file, root, skipFolder)
      return entry.isFile() ? [file] : []
    })
}

/** The hash of a build's inputs: each file's path and content. */
export function buildKey(kind: BuildKind): string {
  const hash = createHash('sha256').update(`${kind}\n`)
  for (const file of [...TOOLING, ...SOURCES[kind]].flatMap((dir) => filesUnder(dir))) {
    const content = createHash('sha256').update(readFileSync(path.join(projectRoot, file)))
    hash.update(`${file}\n`).update(content.digest())
  }
  return hash.digest('hex').slice(0, 16)
}

/** The folder a build of `kind` from the current sources has, or would have. */
export function buildPath(kind: BuildKind): string {
  return path.join(buildCacheDir, `${kind}-${buildKey(kind)}`)
}

// Temporary folders being built into: removed if the process exits first (Ctrl-C in npm test).
const inProgress = new Set<string>()
process.once('exit', () => {
  for (const dir of inProgress) rmSync(dir, { recursive: true, force: true })
})

/**
 * The folder `name` under `cacheDir`, made by `make` (given an empty folder to fill) if
 * it is not there yet. `make` runs in a temporary folder that is then renamed to `name`:
 * if another process got there first, its folder is kept and this one removed. A
 * failure removes the temporary folder. Returns the folder and whether it was made here.
 */
export async function cachedFolder(cacheDir: string, name: string, make: (dir: string) => Promise<void>): Promise<{ dir: string; made: boolean }> {
  const dir = path.join(cacheDir, name)
  if (existsSync(dir)) {
    markUsed(dir)
    return { dir, made: false }
  }
  mkdirSync(cacheDir, { recursive: true })
  const temporary = mkdtempSync(path.join(cacheDir, `.tmp-${name}-`))
  inProgress.add(temporary)
  try {
    await make(temporary)
    try {
      renameSync(temporary, dir)
    } catch (error) {
      // Another process renamed its own first (the target is a folder that is not empty).
      if (!existsSync(dir)) throw error
      rmSync(temporary, { recursive: true, force: true })
      return { dir, made: false }
    }
  } catch (error) {
    rmSync(temporary, { recursive: true, force: true })
    throw error
  } finally {
    inProgress.delete(temporary)
  }
  removeUnused(cacheDir, name)
  return { dir, made: true }
}

function markUsed(dir: string): void {
  const now = new Date()
  try {
    utimesSync(dir, now, now)
  } catch {
    // Removed meanwhile by another process's clean-up: it was over an hour unused.
  }
}

/** Other builds of the kind of `made` (and leftovers of killed builds) unused for an hour. */
function removeUnused(cacheDir: string, made: string): void {
  // The name is `<kind>-<key>`, and a kind may have a hyphen of its own (`production-markup`).
  const kindOf = (name: string) => name.replace(/-[^-]+$/, '')
  const kind = kindOf(made)
  const before = Date.now() - KEPT_UNUSED_MS
  for (const name of readdirSync(cacheDir)) {
    if (name === made || !(kindOf(name) === kind || name.startsWith('.tmp-'))) continue
    const dir = path.join(cacheDir, name)
    if ((statSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? Infinity) < before) rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Every file a build in `dir` was made from (its source maps' `sources`, if it has
 * maps) must be in node_modules or in the build's SOURCES: a file elsewhere is not in
 * its key, and a change to it would leave the build stale.
 */
function checkSources(kind: BuildKind, dir: string): void {
  const allowed = [...SOURCES[kind], 'node_modules'].map((folder) => path.join(projectRoot, folder) + path.sep)
  const maps = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.map'))
  for (const map of maps) {
    const { sources = [] } = JSON.parse(readFileSync(path.join(dir, map), 'utf8')) as { sources?: string[] }
    for (const source of sources) {
      if (source.startsWith('\0') || !source.includes('/')) continue // Rollup's virtual modules
      const file = path.resolve(path.dirname(path.join(dir, map)), source)
      if (!allowed.some((folder) => file.startsWith(folder))) {
        throw new Error(
          `The ${kind} build read ${path.relative(projectRoot, file)}, outside the folders its cache key covers ` +
            `(${SOURCES[kind].join(', ')}): add its folder to SOURCES in test/helpers/build.ts.`,
        )
      }
    }
  }
}

// One build at a time in a process: each client build sets and restores NODE_ENV around Vite's.
let queue: Promise<unknown> = Promise.resolve()
function oneAtATime<T>(task: () => Promise<T>): Promise<T> {
  const result = queue.then(task)
  queue = result.catch(() => {})
  return result
}

async function make(kind: BuildKind, dir: string): Promise<void> {
  const { buildClient, buildServer } = await import('../../scripts/build.js')
  if (kind === 'dist') {
    // The deployed client as it is (made first if need be; checked then), the server beside it.
    cpSync(await ensure('deployed'), path.join(dir, 'client'), { recursive: true })
    await buildServer(path.join(dir, 'server'))
    checkSources(kind, path.join(dir, 'server'))
  } else {
    await buildClient({ ...CLIENT_BUILDS[kind], outDir: dir })
    checkSources(kind, dir)
  }
}

async function ensure(kind: BuildKind): Promise<string> {
  const { dir } = await cachedFolder(buildCacheDir, path.basename(buildPath(kind)), (temporary) => make(kind, temporary))
  return dir
}

const builds = new Map<BuildKind, Promise<string>>()

/** The folder of the build of `kind` from the current sources; made (once per process) if need be. */
export function testBuild(kind: BuildKind): Promise<string> {
  let build = builds.get(kind)
  if (!build) {
    build = oneAtATime(() => ensure(kind))
    builds.set(kind, build)
  }
  return build
}

/** A client build for a test app (`buildKindOf`). */
export async function buildFor(kind: ClientBuildKind): Promise<ClientBuild> {
  const clientDir = await testBuild(kind)
  const manifest = JSON.parse(readFileSync(path.join(clientDir, 'manifest.json'), 'utf8')) as BuildManifest
  return { clientDir, manifest }
}

/**
 * A new folder named `<prefix>-*` under test/.build/, for a test's own files: inside
 * the project, so a server bundle there resolves node_modules as a deploy's does. Its
 * maker removes it.
 */
export function newBuildDir(prefix: string): string {
  mkdirSync(path.join(projectRoot, 'test/.build'), { recursive: true })
  return mkdtempSync(path.join(projectRoot, `test/.build/${prefix}-`))
}

/**
 * Makes the builds named in `args` if need be (test/helpers/build-process.mjs, which
 * scripts/test.ts starts once per build, to make them side by side).
 */
export async function buildFromCommandLine(args: readonly string[]): Promise<void> {
  // Interrupted: exit, so that the half-made build is removed (the exit handler above).
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(128 + osConstants.signals[signal]))
  const unknown = args.filter((kind) => !(kind in SOURCES))
  if (unknown.length > 0) throw new Error(`No such build: ${unknown.join(', ')} (there are ${Object.keys(SOURCES).join(', ')})`)
  for (const kind of args) await testBuild(kind as BuildKind)
}
