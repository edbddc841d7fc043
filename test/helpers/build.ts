/**
 * Client builds for tests: the production application or the fixture one.
 *
 * `npm test` over more than one file builds both once before tap starts (with the
 * server bundle: `prebuildForTests`) and names the folder in TEST_PREBUILT_DIR; every
 * test process then reads those builds, which it never writes to. Without the
 * variable (one file, or tap run directly), each process builds what it uses into a
 * temporary folder of its own, removed when the process ends
 * (docs/decisions/022-shared-test-builds.md).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildClient, buildServer } from '../../scripts/build.js'
import type { BuildManifest } from '../../shared/framework/build-manifest.js'

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

const APPS = {
  production: { entry: 'client/entry.tsx', pagesDir: 'client/pages' },
  fixture: { entry: 'test/fixtures/app/entry.tsx', pagesDir: 'test/fixtures/app/pages' },
} as const
export type BuiltApp = keyof typeof APPS

export interface ClientBuild {
  readonly clientDir: string
  readonly manifest: BuildManifest
}

/** The variable `npm test` names its shared builds' folder in. */
export const PREBUILT_DIR_VARIABLE = 'TEST_PREBUILT_DIR'

/** Where a prebuilt folder keeps each build: the production one as a deploy's dist/. */
const prebuiltLayout = (dir: string) => ({
  dist: path.join(dir, 'dist'),
  production: path.join(dir, 'dist/client'),
  fixture: path.join(dir, 'fixture'),
})

/** Builds the production client and server into `dist`, laid out as a deploy's dist/. */
export async function buildProductionDist(dist: string): Promise<void> {
  await buildClient({ ...APPS.production, outDir: path.join(dist, 'client') })
  await buildServer(path.join(dist, 'server'))
}

/**
 * A new folder named `<prefix>-*` under test/.build/: inside the project, so a server
 * bundle there resolves node_modules as a deploy's does. Its maker removes it.
 */
export function newBuildDir(prefix: string): string {
  mkdirSync(path.join(projectRoot, 'test/.build'), { recursive: true })
  return mkdtempSync(path.join(projectRoot, `test/.build/${prefix}-`))
}

/** Builds everything the tests use into `dir` (`newBuildDir('prebuilt')`); a failure removes it. */
export async function prebuildForTests(dir: string): Promise<void> {
  const layout = prebuiltLayout(dir)
  try {
    // One after the other: each client build sets and restores NODE_ENV around Vite's.
    await buildProductionDist(layout.dist)
    await buildClient({ ...APPS.fixture, outDir: layout.fixture })
  } catch (error) {
    rmSync(dir, { recursive: true, force: true }) // a half-made build is of no use to anyone
    throw error
  }
}

/** The shared builds' folder of this run, if `npm test` made one. */
export function prebuiltDir(): string | undefined {
  return process.env[PREBUILT_DIR_VARIABLE] || undefined
}

const builds = new Map<BuiltApp, Promise<ClientBuild>>()
let root: string | undefined

export function buildFor(app: BuiltApp): Promise<ClientBuild> {
  let build = builds.get(app)
  if (!build) {
    const shared = prebuiltDir()
    if (shared) {
      const clientDir = prebuiltLayout(shared)[app]
      const manifest = JSON.parse(readFileSync(path.join(clientDir, 'manifest.json'), 'utf8')) as BuildManifest
      build = Promise.resolve({ clientDir, manifest })
    } else {
      if (!root) {
        root = mkdtempSync(path.join(tmpdir(), 'app-test-build-'))
        const dir = root
        process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
      }
      const clientDir = path.join(root, app)
      build = buildClient({ ...APPS[app], outDir: clientDir }).then((manifest) => ({ clientDir, manifest }))
    }
    builds.set(app, build)
  }
  return build
}

/** The production server's dist/ (client and server) from the shared builds, if any. */
export function prebuiltDist(): string | undefined {
  const shared = prebuiltDir()
  return shared ? prebuiltLayout(shared).dist : undefined
}

