/**
 * Client builds for tests: the production application or the fixture one, built once
 * per test process into a temporary folder (test files run in parallel, so each
 * process has its own), and removed when the process ends.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildClient } from '../../scripts/build.js'
import type { BuildManifest } from '../../shared/build-manifest.js'

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

const builds = new Map<BuiltApp, Promise<ClientBuild>>()
let root: string | undefined

export function buildFor(app: BuiltApp): Promise<ClientBuild> {
  let build = builds.get(app)
  if (!build) {
    if (!root) {
      root = mkdtempSync(path.join(tmpdir(), 'app-test-build-'))
      const dir = root
      process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
    }
    const clientDir = path.join(root, app)
    build = buildClient({ ...APPS[app], outDir: clientDir }).then((manifest) => ({ clientDir, manifest }))
    builds.set(app, build)
  }
  return build
}
