/**
 * The production build, with esbuild:
 * - client: ESM, one chunk per page (each route's dynamic import), content-hashed
 *   names, minified, external source maps (kept for monitoring, not served); the
 *   metafile becomes manifest.json, which tells the server what to preload per route.
 *   Beside every script and stylesheet, `.br` (quality 11) and `.gz` (level 9): the
 *   server sends them as they are (server/compression.ts).
 * - server: one ESM bundle with node_modules left external, plus a two-line launcher
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
import { ASSETS_PREFIX } from '../shared/constants.js'
import type { BuildManifest, ChunkFiles } from '../shared/build-manifest.js'

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

export interface ClientBuildOptions {
  /** The browser entry (client/entry.tsx for the application). */
  readonly entry: string
  /** Where page modules live: `<pagesDir>/<routeId>.tsx` is the chunk of route `routeId`. */
  readonly pagesDir: string
  /** Output folder: assets go to `<outDir>/assets`, the manifest to `<outDir>/manifest.json`. */
  readonly outDir: string
}

export async function buildClient(options: ClientBuildOptions): Promise<BuildManifest> {
  const assetsDir = path.join(options.outDir, 'assets')
  await rm(options.outDir, { recursive: true, force: true })
  const result = await esbuild.build({
    absWorkingDir: projectRoot,
    entryPoints: { entry: options.entry },
    outdir: assetsDir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022', 'chrome111', 'firefox111', 'safari16.4'],
    jsx: 'automatic',
    minify: true,
    sourcemap: 'external',
    legalComments: 'none',
    entryNames: '[name]-[hash]',
    chunkNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    define: { 'process.env.NODE_ENV': '"production"' },
    // wouter's hook shim for React before 18: React 19 has the hook (client/vendor/).
    alias: { 'use-sync-external-store/shim/index.js': './client/vendor/use-sync-external-store-shim.ts' },
    metafile: true,
    logLevel: 'warning',
  })
  const manifest = manifestFrom(result.metafile, options, assetsDir)
  await writeFile(path.join(options.outDir, 'manifest.json'), JSON.stringify(manifest, null, 2))
  await precompress(Object.keys(result.metafile.outputs).filter((file) => /\.(js|css)$/.test(file)))
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

function manifestFrom(metafile: esbuild.Metafile, options: ClientBuildOptions, assetsDir: string): BuildManifest {
  const relative = (file: string) => path.relative(projectRoot, path.resolve(projectRoot, file))
  const toUrl = (output: string) => ASSETS_PREFIX + path.relative(assetsDir, path.resolve(projectRoot, output))
  const entrySource = relative(options.entry)
  const pagesDir = relative(options.pagesDir)

  // The static imports of a chunk, followed transitively: all must be preloaded.
  const staticImports = (output: string, seen = new Set<string>()): Set<string> => {
    for (const imported of metafile.outputs[output]?.imports ?? []) {
      if (imported.kind !== 'import-statement' || imported.external || seen.has(imported.path)) continue
      seen.add(imported.path)
      staticImports(imported.path, seen)
    }
    return seen
  }
  const chunkFiles = (output: string): ChunkFiles => ({
    file: toUrl(output),
    imports: [...staticImports(output)].map(toUrl),
  })

  let entry: ChunkFiles | undefined
  const css: string[] = []
  const routes: Record<string, ChunkFiles> = {}
  for (const [output, info] of Object.entries(metafile.outputs)) {
    if (!output.endsWith('.js') || !info.entryPoint) continue
    const source = relative(info.entryPoint)
    if (source === entrySource) {
      entry = chunkFiles(output)
      if (info.cssBundle) css.push(toUrl(info.cssBundle))
    } else if (path.dirname(source) === pagesDir) {
      routes[path.basename(source).replace(/\.tsx?$/, '')] = chunkFiles(output)
    }
  }
  if (!entry) throw new Error(`The build has no output for the entry ${options.entry}`)

  // Output names carry content hashes, so hashing them all identifies the build.
  const buildId = createHash('sha256')
    .update(Object.keys(metafile.outputs).sort().join('\n'))
    .digest('base64url')
    .slice(0, 12)
  return { buildId, entry, css, routes }
}

export async function buildServer(outDir: string): Promise<void> {
  await rm(outDir, { recursive: true, force: true })
  await esbuild.build({
    absWorkingDir: projectRoot,
    entryPoints: { server: 'server/main.ts', instrument: 'server/instrument.ts' },
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
  // React picks its production build from NODE_ENV when first imported, and ESM
  // imports are hoisted: so the variable is set here, before the bundle is imported.
  await mkdir(outDir, { recursive: true })
  // With SENTRY_DSN, @sentry/node is initialised before anything it instruments is
  // imported (what `node --import` would do), and not loaded at all without it.
  await writeFile(
    path.join(outDir, 'main.js'),
    [
      "process.env.NODE_ENV ??= 'production'",
      "if (process.env.SENTRY_DSN) await import('./instrument.js')",
      "await import('./server.js')",
      '',
    ].join('\n'),
  )
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const started = performance.now()
  const manifest = await buildClient({
    entry: 'client/entry.tsx',
    pagesDir: 'client/pages',
    outDir: path.join(projectRoot, 'dist/client'),
  })
  await buildServer(path.join(projectRoot, 'dist/server'))
  console.log(`Built ${manifest.buildId} in ${Math.round(performance.now() - started)} ms`)
}
