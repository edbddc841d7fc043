/**
 * The project's TypeScript as JavaScript, for the test files `npm test` runs
 * (docs/decisions/052-tests-run-transpiled.md). Each file of client/, server/, shared/,
 * scripts/ and test/ is transpiled on its own by esbuild with tsx's options (types
 * removed, JSX made `react/jsx-runtime` calls, names kept, an inline source map), into
 * .cache/test-js/js-<key>/ with the same layout, so every relative import finds its
 * file. Under tsx, each module a test process loads is a round trip to tsx's hooks
 * thread and a cache lookup: about a second of CPU for a file that starts the app,
 * spent again in every one of a hundred processes. Here it is spent once per change.
 *
 * What a file learns of where it is (`import.meta.url`, `.dirname`, `.filename`) is
 * the source file's, so paths made from it (the project root, a fixture beside the
 * test) are the checkout's. In the application's code, an `import()` of a template
 * ending in `.ts` or `.tsx` (the page loaders) is pointed at the `.js` beside it. A
 * file esbuild cannot read becomes a module that throws esbuild's message when
 * imported, as it would under tsx: only the tests that load it fail.
 *
 * The key hashes every file's path and content, esbuild's and Node's versions and this
 * file; the folder is made and kept as the test builds are (`cachedFolder`).
 */
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { transformSync, version as esbuildVersion } from 'esbuild'
import { cachedFolder, filesUnder } from '../test/helpers/build.js'

const FOLDERS = ['client', 'server', 'shared', 'scripts', 'test']
/** The application's code, where the page loaders are. */
const APPLICATION_FOLDERS = ['client', 'server', 'shared']
/** Never source: builds, copies of the project, caches. */
const SKIPPED = new Set(['node_modules', '.build', '.cache', '.tap'])

function sourceFiles(root: string, dir: string): string[] {
  return filesUnder(dir, root, (name) => SKIPPED.has(name)).filter((file) => /\.tsx?$/.test(file) && !file.endsWith('.d.ts'))
}

/** `import(\`./pages/${id}.ts\`)` and `.tsx`: the file esbuild writes is `.js`. */
const TYPESCRIPT_IMPORT = /(\bimport\(\s*`[^`]*)\.tsx?(`\s*\))/g

function transpile(root: string, file: string, text: string): string {
  const source = path.join(root, file)
  let code: string
  try {
    ;({ code } = transformSync(text, {
      loader: file.endsWith('.tsx') ? 'tsx' : 'ts',
      format: 'esm',
      target: `node${process.versions.node}`,
      jsx: 'automatic',
      keepNames: true,
      sourcemap: 'inline',
      sourcefile: source,
      define: {
        'import.meta.url': JSON.stringify(pathToFileURL(source).href),
        'import.meta.dirname': JSON.stringify(path.dirname(source)),
        'import.meta.filename': JSON.stringify(source),
      },
    }))
  } catch (error) {
    return `throw new SyntaxError(${JSON.stringify(`${file}: ${error instanceof Error ? error.message : String(error)}`)})\n`
  }
  // Only there: a test may hold such an import as text, in a string.
  return APPLICATION_FOLDERS.includes(file.split(path.sep)[0]!) ? code.replace(TYPESCRIPT_IMPORT, '$1.js$2') : code
}

/** The folder holding the transpiled project, made if the sources changed since. */
export async function transpileForTests(root: string): Promise<string> {
  const files = FOLDERS.flatMap((dir) => sourceFiles(root, dir))
  const texts = new Map(files.map((file) => [file, readFileSync(path.join(root, file), 'utf8')]))
  const hash = createHash('sha256')
    .update(`esbuild ${esbuildVersion}, node ${process.versions.node}\n`)
    .update(readFileSync(fileURLToPath(import.meta.url)))
  for (const [file, text] of texts) hash.update(`\n${file}\n`).update(text)
  const key = hash.digest('hex').slice(0, 16)
  const { dir } = await cachedFolder(path.join(root, '.cache/test-js'), `js-${key}`, async (staging) => {
    for (const [file, text] of texts) {
      const out = path.join(staging, file.replace(/\.tsx?$/, '.js'))
      mkdirSync(path.dirname(out), { recursive: true })
      writeFileSync(out, transpile(root, file, text))
    }
  })
  return dir
}

/**
 * Where `transpileForTests` put `file` (a path relative to the project), or undefined
 * for a file it does not transpile (outside those folders, or in a skipped one).
 */
export function transpiledPath(dir: string, file: string): string | undefined {
  const parts = path.normalize(file).split(path.sep)
  if (!FOLDERS.includes(parts[0]!) || parts.some((part) => SKIPPED.has(part)) || !/\.tsx?$/.test(file)) return undefined
  return path.join(dir, file.replace(/\.tsx?$/, '.js'))
}
