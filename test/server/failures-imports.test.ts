/**
 * The refusal and failure code loads no React: a refusal answered before routing, or
 * a fault on /api, must not pull in the page renderer. Checked on the module graph
 * esbuild sees from the modules that classify and send errors.
 */
import path from 'node:path'
import * as esbuild from 'esbuild'
import t from 'tap'
import { projectRoot } from '../helpers/build.js'

t.test('the error registry, classifier and responses import neither React nor client code', async (t) => {
  const entries = ['error-registry.ts', 'error-responses.ts', 'failures.ts', 'request-kinds.ts', 'error-documents.ts'].map((file) =>
    path.join(projectRoot, 'server/framework', file),
  )
  const result = await esbuild.build({
    entryPoints: entries,
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outdir: 'out',
    logLevel: 'silent',
  })
  const inputs = Object.keys(result.metafile.inputs)
  const packages = new Set(Object.values(result.metafile.inputs).flatMap((input) => input.imports.filter((i) => i.external).map((i) => i.path)))
  t.notOk(
    [...packages].some((name) => name === 'react' || name.startsWith('react-dom') || name.startsWith('react/')),
    `packages: ${[...packages].join(', ')}`,
  )
  t.same(
    inputs.filter((file) => file.startsWith('client/') || file.includes('/render/')),
    [],
    'no client module and no renderer',
  )
  t.ok(
    inputs.some((file) => file.endsWith('server/framework/failures.ts')),
    'the graph was read',
  )
})
