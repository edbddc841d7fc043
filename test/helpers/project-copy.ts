/**
 * A copy of the project that a test may edit freely, under test/.build/ (so
 * node_modules resolve as in the checkout), removed with the test.
 */
import { cpSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { newBuildDir, projectRoot } from './build.js'

type Test = { teardown(fn: () => unknown): void }

/** What the project's commands need: sources, configs, the package. */
const PROJECT_FILES = [
  'client',
  'server',
  'shared',
  'scripts',
  'vite.config.ts',
  'index.html',
  'package.json',
  'tsconfig.json',
  'tsconfig.base.json',
  'tsconfig.client.json',
  'tsconfig.server.json',
]

export interface ProjectCopy {
  readonly dir: string
  /**
   * Rewrites `file` (relative to the copy) with `edit` applied to its text, at once:
   * whatever watches or reads the copy sees the old text or the new, never a part.
   */
  edit(file: string, edit: (text: string) => string): void
}

/** Copies the project, plus `extra` files (relative paths, such as one test file). */
export function copyProject(t: Test, prefix: string, extra: readonly string[] = []): ProjectCopy {
  const dir = newBuildDir(prefix)
  for (const name of [...PROJECT_FILES, ...extra]) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    cpSync(path.join(projectRoot, name), path.join(dir, name), { recursive: true })
  }
  // Beside the copy, not in it: nothing that watches the copy sees it come and go.
  const staged = `${dir}.edit`
  t.teardown(() => {
    rmSync(dir, { recursive: true, force: true })
    rmSync(staged, { force: true })
  })
  return {
    dir,
    edit(file, edit) {
      const target = path.join(dir, file)
      const before = readFileSync(target, 'utf8')
      const after = edit(before)
      if (after === before) throw new Error(`the edit changed nothing in ${file}`)
      // Written whole, then renamed over the file, as editors that save atomically do.
      // Written in place, the file is empty between the truncation and the write, and a
      // dev server that reads it then (Vite's watcher fires on the truncation) loads an
      // empty module: a page with no default export instead of the edit, or a hot
      // update that changes nothing, and no second change event if the write lands in
      // the same mtime tick.
      writeFileSync(staged, after)
      renameSync(staged, target)
    },
  }
}
