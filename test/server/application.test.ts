/**
 * The product holds together or the start says which file to fix: a route without its
 * page modules, a page module without its route, a module that declares another route.
 * Each case in a copy of the project, started as `npm run build` and the server load it.
 */
import { spawnSync } from 'node:child_process'
import { rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { application } from '../../server/application.js'
import { routes } from '../../shared/routes.js'
import { copyProject } from '../helpers/project-copy.js'

t.test("the product's application has both modules of every route", async (t) => {
  t.same(Object.keys(application.definition.serverPages).sort(), Object.keys(routes).sort())
  t.same(Object.keys(application.definition.clientPages).sort(), Object.keys(routes).sort())
})

/** Loads the copy's server/application.ts as the server does; its exit code and stderr. */
function loadApplication(dir: string): { status: number | null; stderr: string } {
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', "await import('./server/application.ts')"], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 60_000,
  })
  return { status: result.status, stderr: result.stderr }
}

t.test('a route, then its modules, one file at a time: each missing one is named', async (t) => {
  const copy = copyProject(t, 'application')
  copy.edit('shared/routes.ts', (text) =>
    text.replace(
      "about: route<AboutData>()({ pattern: '/about', mode: 'static', sharedCache: { maxAge: 300 } }),",
      "$&\n  extra: route<AboutData>()({ pattern: '/extra', mode: 'static' }),",
    ),
  )
  let loaded = loadApplication(copy.dir)
  t.not(loaded.status, 0)
  t.match(loaded.stderr, 'The route "extra" has no module server/pages/extra.ts: add it')

  writeFileSync(
    path.join(copy.dir, 'server/pages/extra.ts'),
    "import { routes } from '../../shared/routes.js'\nimport { defineServerPage } from '../framework/index.js'\n" +
      "export default defineServerPage(routes.extra, { loader: () => ({ paragraph: 'x' }) })\n",
  )
  loaded = loadApplication(copy.dir)
  t.not(loaded.status, 0)
  t.match(loaded.stderr, 'The route "extra" has no module client/pages/extra.tsx: add it')

  writeFileSync(
    path.join(copy.dir, 'client/pages/extra.tsx'),
    "import { routes } from '../../shared/routes.js'\nimport { definePage } from '../framework/index.js'\n" +
      "export default definePage(routes.extra, { title: () => 'Extra', Component: () => null })\n",
  )
  loaded = loadApplication(copy.dir)
  t.equal(loaded.status, 0, loaded.stderr)
})

t.test('a page module without a route, and one that declares another route, stop the start', async (t) => {
  const copy = copyProject(t, 'application')
  writeFileSync(path.join(copy.dir, 'client/pages/stray.tsx'), 'export default null\n')
  let loaded = loadApplication(copy.dir)
  t.not(loaded.status, 0)
  t.match(loaded.stderr, 'client/pages/stray.tsx is a client page module without a route: add "stray" to shared/routes.ts, or remove the file')

  rmSync(path.join(copy.dir, 'client/pages/stray.tsx'))
  copy.edit('server/pages/about.ts', (text) => text.replace('defineServerPage(routes.about,', 'defineServerPage(routes.home as never,'))
  loaded = loadApplication(copy.dir)
  t.not(loaded.status, 0)
  t.match(loaded.stderr, "server/pages/about.ts must declare its own route: export default defineServerPage(routes['about'], ...)")
})
