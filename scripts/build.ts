/**
 * The production build:
 * - client, with Vite (Rollup): ESM, one chunk for everything the entry imports
 *   statically and one per page (each route's dynamic import), content-hashed names,
 *   minified by terser, source maps kept beside (for monitoring, never served); Vite's manifest
 *   becomes manifest.json, which tells the server what to preload per route. Rollup,
 *   not esbuild, because esbuild splits the code a page shares with the entry into many
 *   small chunks: ten requests before the first page hydrates instead of two
 *   (docs/decisions/017-first-paint.md).
 *   Beside every script and stylesheet, `.br` (quality 11) and `.gz` (level 9): the
 *   server sends them as they are (server/framework/compression.ts).
 * - server, with esbuild: one ESM bundle with node_modules left external, plus a two-line launcher
 *   (dist/server/main.js) that sets NODE_ENV before React is first imported.
 *
 * `node --import tsx scripts/build.ts` builds both into dist/. Tests import
 * `buildClient` to build fixture apps.
 */
import { createHash } from 'node:crypto'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { promisify } from 'node:util'
import zlib from 'node:zlib'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import * as esbuild from 'esbuild'
import type { Manifest } from 'vite'
import { ASSETS_PREFIX } from '../shared/framework/constants.js'
import type { BuildManifest, ChunkFiles } from '../shared/framework/build-manifest.js'

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

export interface ClientBuildOptions {
  /** The browser entry (client/entry.tsx for the application). */
  readonly entry: string
  /** Where page modules live: `<pagesDir>/<routeId>.tsx` is the chunk of route `routeId`. */
  readonly pagesDir: string
  /** Output folder: assets go to `<outDir>/assets`, the manifest to `<outDir>/manifest.json`. */
  readonly outDir: string
  /**
   * false: without what only a deploy needs, terser, the source maps and the
   * `.br`/`.gz` files (the tests' builds, test/helpers/build.ts: under half the time).
   * The chunks, their names' hashes aside, the manifest and the stylesheet are the
   * same. Default true.
   */
  readonly forDeploy?: boolean
  /**
   * false: the dependencies (node_modules) are left as bare imports instead of bundled,
   * for tests that only read the markup (test/helpers/build.ts). Rollup then reads our
   * few dozen modules instead of React's and Sentry's hundreds: a build in a third of
   * the time. The chunks and their imports, the manifest and the stylesheet are the
   * same; the scripts are not ones a browser can run. Default true.
   */
  readonly bundleDependencies?: boolean
}

/** A bare import (`react`, `@sentry/browser`) of a module that is not an entry: a dependency. */
function isDependency(id: string, importer: string | undefined, isResolved: boolean): boolean {
  if (importer === undefined) return false
  return isResolved ? id.includes('/node_modules/') : /^(@[\w.-]+\/)?[\w.-]+(\/|$)/.test(id) && !id.startsWith('.')
}

/** wouter's React imports, for React 19 (client/framework/vendor/wouter-react-deps.ts says why). */
const wouterReactDeps = {
  name: 'wouter-react-deps',
  enforce: 'pre' as const,
  resolveId(source: string, importer: string | undefined) {
    if (source !== './react-deps.js' || !importer?.includes('/node_modules/wouter/')) return null
    return path.join(projectRoot, 'client/framework/vendor/wouter-react-deps.ts')
  },
}

/**
 * Vite wraps every `import()` of the client in its preload helper, which adds `<link>`s
 * for the imported chunk's own imports and stylesheets before importing it. Here there
 * is nothing for it to add: the server writes the preloads (`modulePreload: false`) and
 * the app has one stylesheet, in every document. So the helper only imports: given as
 * that, it is 1.1 KB less in the first-load script. Should a build ever give it
 * something to preload, that build fails instead of shipping a page without it.
 */
const VITE_PRELOAD_HELPER = '\0vite/preload-helper.js'
const directDynamicImports = {
  name: 'direct-dynamic-imports',
  enforce: 'pre' as const,
  load(id: string) {
    return id === VITE_PRELOAD_HELPER ? { code: 'export const __vitePreload = (load) => load()', moduleSideEffects: false } : null
  },
  // After Vite's own (which writes the dependency lists into the chunks), before anything is written.
  generateBundle: {
    order: 'post' as const,
    handler(this: { error(message: string): never }, _options: unknown, bundle: Record<string, { type: string; fileName: string; code?: string }>) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type === 'chunk' && chunk.code?.includes('__vite__mapDeps')) {
          this.error(`${chunk.fileName}: Vite has dependencies to preload for a dynamic import (see directDynamicImports)`)
        }
      }
    },
  },
}

export async function buildClient(options: ClientBuildOptions): Promise<BuildManifest> {
  await rm(options.outDir, { recursive: true, force: true })
  // Imported here: the server build and the tests that never build a client do not load Vite.
  const { build } = await import('vite')
  // Vite sets NODE_ENV to production in this process when it is unset; the tests build
  // in-process and must keep theirs.
  const nodeEnv = process.env.NODE_ENV
  let output: Awaited<ReturnType<typeof build>>
  try {
    output = await build({
      configFile: false, // vite.config.ts is development's; everything production needs is here
      root: projectRoot,
      publicDir: false,
      logLevel: 'warn',
      define: { 'process.env.NODE_ENV': '"production"' },
      // wouter's hook shim for React before 18: React 19 has the hook (client/framework/vendor/).
      resolve: {
        alias: { 'use-sync-external-store/shim/index.js': path.join(projectRoot, 'client/framework/vendor/use-sync-external-store-shim.ts') },
      },
      // `charset: 'ascii'`: the stylesheet keeps `\2605` escaped (Vite's default writes the
      // character): it is inlined into every document, and one character outside Latin-1
      // makes the server hold and encode the whole document as UTF-16. terser writes the
      // scripts' strings as it likes either way.
      esbuild: { jsx: 'automatic', legalComments: 'none', charset: 'ascii' },
      plugins: [wouterReactDeps, directDynamicImports],
      build: {
        outDir: options.outDir,
        emptyOutDir: true,
        assetsDir: 'assets',
        manifest: true,
        // Kept for monitoring (symbolication), never referenced from the scripts. Not in
        // the tests' builds: a fifth of a build's time, for files no test process reads.
        sourcemap: options.forDeploy === false ? false : 'hidden',
        // The server writes the preloads (server/framework/render/document.ts), so Vite's helper does not.
        modulePreload: false,
        // One stylesheet for the app: the server inlines it into every document.
        cssCodeSplit: false,
        target: ['es2022', 'chrome111', 'firefox111', 'safari16.4'],
        // terser, not esbuild: 1.1 KB less gzip of the entry (77.4 against 78.5 KB), a second
        // compress pass finding what the first one exposed; only options that keep semantics.
        minify: options.forDeploy === false ? false : 'terser',
        terserOptions: { ecma: 2020, compress: { passes: 2 } },
        // The stylesheet minified either way (esbuild, as with terser: milliseconds), so the
        // one the server writes into every document is the same byte for byte.
        cssMinify: 'esbuild',
        reportCompressedSize: false,
        rollupOptions: {
          input: { entry: options.entry },
          treeshake: { moduleSideEffects: (id) => id.includes('/node_modules/') || id.endsWith('.css') },
          ...(options.bundleDependencies === false ? { external: isDependency } : {}),
          output: {
            entryFileNames: 'assets/[name]-[hash].js',
            chunkFileNames: 'assets/[name]-[hash].js',
            assetFileNames: 'assets/[name]-[hash][extname]',
          },
        },
      },
    })
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV
    else process.env.NODE_ENV = nodeEnv
  }
  const files = (Array.isArray(output) ? output : [output]).flatMap((result) => ('output' in result ? result.output : []))
  const viteManifest = JSON.parse(await readFile(path.join(options.outDir, '.vite/manifest.json'), 'utf8')) as Manifest
  await rm(path.join(options.outDir, '.vite'), { recursive: true, force: true })
  const manifest = manifestFrom(
    viteManifest,
    options,
    files.map((file) => file.fileName),
  )
  await writeFile(path.join(options.outDir, 'manifest.json'), JSON.stringify(manifest, null, 2))
  if (options.forDeploy !== false) {
    await precompress(files.map((file) => path.join(options.outDir, file.fileName)).filter((file) => /\.(js|css)$/.test(file)))
  }
  return manifest
}

/** Writes `<file>.br` and `<file>.gz` beside each file, at the best levels: done once, sent many times. */
async function precompress(files: readonly string[]): Promise<void> {
  const brotli = promisify(zlib.brotliCompress)
  const gzip = promisify(zlib.gzip)
  await Promise.all(
    files.map(async (file) => {
      const absolute = path.resolve(projectRoot, file)
      const content = await readFile(absolute)
      await Promise.all([
        writeFile(`${absolute}.br`, await brotli(content, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY } })),
        writeFile(`${absolute}.gz`, await gzip(content, { level: zlib.constants.Z_BEST_COMPRESSION })),
      ])
    }),
  )
}

function manifestFrom(vite: Manifest, options: ClientBuildOptions, outputs: readonly string[]): BuildManifest {
  const relative = (file: string) => path.relative(projectRoot, path.resolve(projectRoot, file))
  const toUrl = (file: string) => ASSETS_PREFIX + path.relative('assets', file)
  const entrySource = relative(options.entry)
  const pagesDir = relative(options.pagesDir)

  // The static imports of a chunk, followed transitively: all must be preloaded.
  const staticImports = (key: string, seen = new Set<string>()): Set<string> => {
    for (const imported of vite[key]?.imports ?? []) {
      if (seen.has(imported)) continue
      seen.add(imported)
      staticImports(imported, seen)
    }
    return seen
  }
  const chunkFiles = (key: string): ChunkFiles => ({
    file: toUrl(vite[key]!.file),
    imports: [...staticImports(key)].map((imported) => toUrl(vite[imported]!.file)),
  })

  let entry: ChunkFiles | undefined
  const routes: Record<string, ChunkFiles> = {}
  for (const [key, chunk] of Object.entries(vite)) {
    if (!chunk.src || !chunk.file.endsWith('.js')) continue
    const source = relative(chunk.src)
    if (source === entrySource && chunk.isEntry) entry = chunkFiles(key)
    else if (chunk.isDynamicEntry && path.dirname(source) === pagesDir) routes[path.basename(source).replace(/\.tsx?$/, '')] = chunkFiles(key)
  }
  if (!entry) throw new Error(`The build has no output for the entry ${options.entry}`)
  // With one stylesheet for the app (cssCodeSplit off), Vite lists it on its own.
  const css = outputs.filter((file) => file.endsWith('.css')).map(toUrl)

  // Output names carry content hashes, so hashing them all identifies the build.
  const buildId = createHash('sha256')
    .update([...outputs].sort().join('\n'))
    .digest('base64url')
    .slice(0, 12)
  return { buildId, entry, css, routes }
}

/**
 * Bundles server-side entry points the way the production server is built: one ES
 * module each, dependencies left to node_modules. `entryPoints`: output name to source.
 */
export async function bundleForNode(entryPoints: Record<string, string>, outDir: string): Promise<void> {
  await esbuild.build({
    absWorkingDir: projectRoot,
    entryPoints,
    outdir: outDir,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    jsx: 'automatic',
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'warning',
  })
}

export async function buildServer(outDir: string): Promise<void> {
  await rm(outDir, { recursive: true, force: true })
  await bundleForNode({ server: 'server/main.ts', instrument: 'server/framework/instrument.ts' }, outDir)
  // React picks its production build from NODE_ENV when first imported, and ESM
  // imports are hoisted: so the variable is set here, before the bundle is imported.
  await mkdir(outDir, { recursive: true })
  // With SENTRY_DSN, @sentry/node is initialised before anything it instruments is
  // imported (what `node --import` would do), and not loaded at all without it.
  await writeFile(
    path.join(outDir, 'main.js'),
    ["process.env.NODE_ENV ??= 'production'", "if (process.env.SENTRY_DSN) await import('./instrument.js')", "await import('./server.js')", ''].join(
      '\n',
    ),
  )
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const started = performance.now()
  // The product as the server takes it: a route without its page files, or a page file
  // without its route, stops the build with the file's name (server/framework/application.ts).
  try {
    await import('../server/application.js')
  } catch (error) {
    if (!(error instanceof Error && error.name === 'ApplicationError')) throw error
    console.error(error.message)
    process.exit(1)
  }
  const manifest = await buildClient({
    entry: 'client/entry.tsx',
    pagesDir: 'client/pages',
    outDir: path.join(projectRoot, 'dist/client'),
  })
  await buildServer(path.join(projectRoot, 'dist/server'))
  console.log(`Built ${manifest.buildId} in ${Math.round(performance.now() - started)} ms`)
}
