/**
 * The project's TypeScript as JavaScript, for the test files `npm test` runs
 * (docs/decisions/052-tests-run-transpiled.md). Each file of client/, server/, shared/,
 * scripts/ and test/ is transpiled on its own by esbuild, as tsx does it (types
 * removed, JSX made `react/jsx-runtime` calls, an inline source map), into
 * .cache/test-js/<key>/ with the same layout, so every relative import finds its
 * file. Under tsx, each module a test process loads is a round trip to tsx's hooks
 * thread and a cache lookup: about a second of CPU for a file that starts the app,
 * spent again in every one of a hundred processes. Here it is spent once per change.
 *
 * What a file learns of where it is (`import.meta.url`, `.dirname`, `.filename`) is
 * the source file's, so paths made from it (the project root, a fixture beside the
 * test) are the checkout's. An `import()` of a template ending in `.ts` or `.tsx`
 * (the product's page loaders) is pointed at the `.js` beside it. The key is a hash
 * of every file's path and content, esbuild's version and this file: a change makes a
 * new folder, and a folder is never seen half made (written beside, then renamed).
 */
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { transformSync, version as esbuildVersion } from 'esbuild'

const FOLDERS = ['client', 'server', 'shared', 'scripts', 'test']
/** Never source: builds, copies of the project, caches. */
const SKIPPED = new Set(['node_modules', '.build', '.cache', '.tap'])
/** A folder of another key unused this long is removed when a new one is made. */
const KEPT_UNUSED_MS = 60 * 60 * 1000

function sourceFiles(root: string, dir: string): string[] {
  const full = path.join(root, dir)
  if (!existsSync(full)) return []
  return readdirSync(full, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((entry) => {
      const file = path.join(dir, entry.name)
      if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : sourceFiles(root, file)
      // Plain JavaScript a TypeScript file imports (scripts/lint/) is copied as it is.
      return entry.isFile() && /\.(tsx?|js)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [file] : []
    })
}

/** `import(\`./pages/${id}.ts\`)` and `.tsx`: the file esbuild writes is `.js`. */
const TYPESCRIPT_IMPORT = /(\bimport\(\s*`[^`]*)\.tsx?(`\s*\))/g

function transpile(root: string, file: string, text: string): string {
  if (file.endsWith('.js')) return text
  const source = path.join(root, file)
  const { code } = transformSync(text, {
    loader: file.endsWith('.tsx') ? 'tsx' : 'ts',
    format: 'esm',
    target: `node${process.versions.node}`,
    jsx: 'automatic',
    sourcemap: 'inline',
    sourcefile: source,
    define: {
      'import.meta.url': JSON.stringify(pathToFileURL(source).href),
      'import.meta.dirname': JSON.stringify(path.dirname(source)),
      'import.meta.filename': JSON.stringify(source),
    },
  })
  return code.replace(TYPESCRIPT_IMPORT, '$1.js$2')
}

/** The folder holding the transpiled project, made if the sources changed since. */
export function transpileForTests(root: string): string {
  const files = FOLDERS.flatMap((dir) => sourceFiles(root, dir))
  const texts = new Map(files.map((file) => [file, readFileSync(path.join(root, file), 'utf8')]))
  const hash = createHash('sha256')
    .update(`${esbuildVersion}\n`)
    .update(readFileSync(fileURLToPath(import.meta.url)))
  for (const [file, text] of texts) hash.update(`\n${file}\n`).update(text)
  const parent = path.join(root, '.cache/test-js')
  const key = hash.digest('hex').slice(0, 16)
  const target = path.join(parent, key)
  if (existsSync(target)) {
    const now = new Date()
    utimesSync(target, now, now)
    return target
  }
  const staging = path.join(parent, `.tmp-${randomBytes(6).toString('hex')}`)
  for (const [file, text] of texts) {
    const out = path.join(staging, file.replace(/\.tsx?$/, '.js'))
    mkdirSync(path.dirname(out), { recursive: true })
    writeFileSync(out, transpile(root, file, text))
  }
  try {
    renameSync(staging, target)
  } catch (error) {
    // Another run made the same folder first: its copy is as good.
    rmSync(staging, { recursive: true, force: true })
    if (!existsSync(target)) throw error
  }
  for (const name of readdirSync(parent)) {
    const other = path.join(parent, name)
    if (name !== key && !name.startsWith('.tmp-') && Date.now() - statSync(other).mtimeMs > KEPT_UNUSED_MS)
      rmSync(other, { recursive: true, force: true })
  }
  return target
}

/** Where `transpileForTests` put a TypeScript file (relative to the project) of `root`. */
export function transpiledPath(dir: string, file: string): string {
  return path.join(dir, file.replace(/\.tsx?$/, '.js'))
}
