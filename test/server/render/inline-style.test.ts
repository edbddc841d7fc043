import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import type { BuildManifest } from '../../../shared/framework/build-manifest.js'
import { readInlineStyle } from '../../../server/framework/render/inline-style.js'

/** A client build folder holding `files` under assets/, and a manifest naming them as the stylesheets. */
function buildWith(t: Test, files: Record<string, string>): { clientDir: string; manifest: BuildManifest } {
  const clientDir = mkdtempSync(path.join(tmpdir(), 'inline-style-'))
  t.teardown(() => rmSync(clientDir, { recursive: true, force: true }))
  mkdirSync(path.join(clientDir, 'assets'))
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(clientDir, 'assets', name), text)
  const manifest: BuildManifest = {
    buildId: 'b',
    entry: { file: '/assets/entry.js', imports: [] },
    css: Object.keys(files).map((name) => `/assets/${name}`),
    routes: {},
  }
  return { clientDir, manifest }
}

t.test('the stylesheets are read in order and allowed by the hash of exactly that text', async (t) => {
  const { clientDir, manifest } = buildWith(t, { 'a.css': 'body{color:red}', 'b.css': 'p{margin:0}' })
  const style = readInlineStyle(clientDir, manifest)!
  t.equal(style.text, 'body{color:red}\np{margin:0}')
  t.equal(style.cspSource, `'sha256-${createHash('sha256').update(style.text).digest('base64')}'`)
})

t.test('no stylesheet (development): nothing to inline', async (t) => {
  const { clientDir, manifest } = buildWith(t, {})
  t.equal(readInlineStyle(clientDir, manifest), undefined)
})

t.test('a stylesheet that would end its element early or break its hash stops the start', async (t) => {
  const closing = buildWith(t, { 'a.css': 'a::after{content:"</STYLE><script>x()</script>"}' })
  t.throws(() => readInlineStyle(closing.clientDir, closing.manifest), /contains "<\/style"/)
  const carriageReturn = buildWith(t, { 'a.css': 'body{color:red}\r\np{margin:0}' })
  t.throws(() => readInlineStyle(carriageReturn.clientDir, carriageReturn.manifest), /carriage return/)
})
