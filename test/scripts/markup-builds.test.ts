/**
 * The builds for tests that read the markup leave the dependencies out of the scripts
 * (test/helpers/build.ts). What those tests read must be what a browser is sent: the
 * same chunks with the same imports, per route the same preloads, the same stylesheet.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import type { BuildManifest } from '../../shared/framework/build-manifest.js'
import { buildFor, type ClientBuild } from '../helpers/build.js'

/** The manifest with the content hashes taken out of the file names (`entry-Ab12.js` -> `entry.js`). */
function unhashed(manifest: BuildManifest): unknown {
  return JSON.parse(JSON.stringify({ ...manifest, buildId: 'B' }).replace(/-[\w-]{8}\.(js|css)/g, '.$1'))
}

function stylesheet({ clientDir, manifest }: ClientBuild): string {
  return readFileSync(path.join(clientDir, manifest.css[0]!), 'utf8')
}

t.test('the application: the same chunks, imports and stylesheet as the build a browser runs', async (t) => {
  const [markup, complete] = await Promise.all([buildFor('production-markup'), buildFor('production')])
  t.same(unhashed(markup.manifest), unhashed(complete.manifest))
  t.equal(stylesheet(markup), stylesheet(complete))
  const entry = readFileSync(path.join(markup.clientDir, markup.manifest.entry.file), 'utf8')
  t.match(entry, /from\s*["']react["']/, 'the markup build imports React rather than bundling it')
})

t.test('the fixture: the same', async (t) => {
  const [markup, complete] = await Promise.all([buildFor('fixture-markup'), buildFor('fixture')])
  t.same(unhashed(markup.manifest), unhashed(complete.manifest))
  t.equal(stylesheet(markup), stylesheet(complete))
})
