/**
 * Layouts on the server: their data in the document and the page data (left out when
 * the browser holds it), failures rendered inside the nearest layout that did not fail
 * with the nearest error or not-found component, layout actions, and the layout
 * table's rules checked at start-up.
 */
import t from 'tap'
import { createTestApp, testConfig } from '../helpers/app.js'
import { bootstrapOf } from '../helpers/page-html.js'
import { shelfLoads } from '../fixtures/app/server.js'
import { CACHED_LAYOUTS_HEADER } from '../../shared/framework/constants.js'
import { SERVER_ERROR_TEXT } from '../../shared/framework/error-texts.js'
import { Writable } from 'node:stream'
import { buildApp } from '../../server/framework/app.js'
import { buildFor } from '../helpers/build.js'
import { fixtureDefinition } from '../fixtures/app/server.js'
import { createRouter, guarded, layout, route, type LayoutTable, type RouteTable } from '../../shared/framework/route-table.js'

const FORM = { origin: 'http://localhost:80', 'content-type': 'application/x-www-form-urlencoded' }

const text = (html: string, selector: RegExp) => selector.exec(html)?.[1]

t.test('layouts in the fixture application', async (t) => {
  const { app, logs } = await createTestApp(t, 'fixture')

  t.test('a page in a layout: the layout around it, its data in the payload', async (t) => {
    const res = await app.inject('/shelf/one')
    t.equal(res.statusCode, 200)
    t.match(
      res.body,
      /<header class="fixture-header">[^]*<main id="main"[^>]*><div class="shelf"><aside aria-label="Shelf">/,
      'root, main, then the shelf',
    )
    t.match(res.body, /<h1>Shelf item one<\/h1>/)
    const payload = bootstrapOf(res.body)
    t.same(payload.layouts, { shelf: { loads: shelfLoads.count } })
    t.match(res.body, `<p class="shelf-loads">Shelf loads: ${shelfLoads.count}</p>`)
  })

  t.test('a layout reads the data of the page inside it, when it is the route it asks for', async (t) => {
    const open = await app.inject('/shelf/one')
    t.match(open.body, '<p class="shelf-open">Open: Shelf item one</p>', "the shelf item's data, in the first HTML")
    const other = await app.inject('/shelf-special')
    t.equal(other.statusCode, 503)
    t.match(other.body, '<p class="shelf-open">No shelf item open</p>', 'another page of the layout: nothing')
  })

  t.test('page data leaves out, and does not load, the layouts the browser holds', async (t) => {
    const before = shelfLoads.count
    const whole = await app.inject('/_data/shelf/two')
    t.same(whole.json().layouts, { shelf: { loads: before + 1 } }, 'no header: the layout data comes too')
    const cached = await app.inject({ url: '/_data/shelf/two', headers: { [CACHED_LAYOUTS_HEADER]: 'shelf' } })
    t.equal(cached.statusCode, 200)
    t.equal(cached.json().layouts, undefined, 'cached: left out')
    t.equal(cached.json().data.text, 'Shelf item two')
    t.equal(shelfLoads.count, before + 1, "the cached layout's loader did not run")
    const catalog = await app.inject({ url: '/_data/catalog', headers: { [CACHED_LAYOUTS_HEADER]: 'catalog' } })
    t.same(catalog.json().layouts, { catalog: { loads: 1 } }, "a static page's answer is shared: always whole")
    t.equal(catalog.headers['cache-control'], 'public, max-age=300')
    for (const header of ['root, nonsense', ',,,', 'x'.repeat(5000), 'shelf'.repeat(100), 'catalog']) {
      const res = await app.inject({ url: '/_data/shelf/two', headers: { [CACHED_LAYOUTS_HEADER]: header } })
      t.equal(res.statusCode, 200, `cached ${JSON.stringify(header.slice(0, 20))}: a hint, never an error`)
      t.ok(res.json().layouts.shelf, 'the shelf data comes when the header does not name it')
    }
  })

  t.test("a page's failure renders inside its layouts, with the layout's components", async (t) => {
    const broken = await app.inject('/shelf/broken')
    t.equal(broken.statusCode, 500)
    const digest = text(broken.body, /Status 500, digest ([0-9a-z]+)/)
    t.ok(digest, "the shelf's error component, with the digest")
    t.ok(
      logs.some((line) => line.msg === 'loader failed' && line.digest === digest && line.routeId === 'shelf-item'),
      'the same digest in the log',
    )
    t.match(broken.body, '<aside aria-label="Shelf">', 'the shelf stays')
    t.match(broken.body, 'Fixture header link', 'the root layout stays')
    t.notMatch(broken.body, 'hunter2', 'no internal message')
    t.match(bootstrapOf(broken.body), { kind: 'error', status: 500, routeId: 'shelf-item', layouts: { shelf: {} } })

    const missing = await app.inject('/shelf/missing')
    t.equal(missing.statusCode, 404)
    t.match(missing.body, /<aside aria-label="Shelf">[^]*<h1>Nothing on the shelf here.<\/h1>/, "the shelf's not-found component, inside the shelf")
    t.match(missing.body, '<meta name="robots" content="noindex" data-head>')

    const special = await app.inject('/shelf-special')
    t.equal(special.statusCode, 503)
    t.match(special.body, /<aside aria-label="Shelf">[^]*<h1 class="special-error">Special failure 503<\/h1>/, "the route's own error component wins")
  })

  t.test("a layout's failure renders inside its parent: the root's fallbacks, with their exact texts", async (t) => {
    const failed = await app.inject({ url: '/shelf/one', headers: { cookie: 'shelf=fail' } })
    t.equal(failed.statusCode, 500)
    t.notMatch(failed.body, '<aside aria-label="Shelf">', 'the failed layout is not rendered')
    t.match(failed.body, /<header class="fixture-header">[^]*<main id="main"[^>]*><section class="status-page"><h1>([^<]+)<\/h1>/)
    t.match(failed.body, `<h1>${SERVER_ERROR_TEXT}</h1>`)
    const digest = text(failed.body, /Digest: ([0-9a-z]+)/)
    t.ok(
      logs.some((line) => line.msg === 'loader failed' && line.digest === digest && line.layoutId === 'shelf'),
      'logged with the layout',
    )
    const payload = bootstrapOf(failed.body)
    t.match(payload, { kind: 'error', failedLayout: 'shelf', routeId: 'shelf-item' })
    t.equal(payload.layouts, undefined, 'no data for the layout that failed')

    const missing = await app.inject({ url: '/shelf/one', headers: { cookie: 'shelf=missing' } })
    t.equal(missing.statusCode, 404)
    t.match(missing.body, '<h1>404: This page could not be found.</h1>', "the root's not-found text")
    t.notMatch(missing.body, 'Nothing on the shelf', "not the failed layout's own component")
  })

  t.test('a layout action is posted to any page in the layout, and only there', async (t) => {
    const restocked = await app.inject({ method: 'POST', url: '/shelf/two', headers: FORM, payload: '_action=restock' })
    t.equal(restocked.statusCode, 303)
    t.equal(restocked.headers.location, '/shelf/two')
    const elsewhere = await app.inject({ method: 'POST', url: '/guestbook', headers: FORM, payload: '_action=restock' })
    t.equal(elsewhere.statusCode, 404, 'a page outside the layout does not have its actions')
    t.match(elsewhere.body, 'This page has no action named')
    const options = await app.inject({ method: 'OPTIONS', url: '/shelf/one' })
    t.equal(options.headers.allow, 'GET, HEAD, POST', "a page without actions of its own takes its layout's")
    t.equal((await app.inject({ method: 'OPTIONS', url: '/target' })).headers.allow, 'GET, HEAD')
  })

  t.test("head entries: the layout's, then the page's", async (t) => {
    const res = await app.inject('/shelf/one')
    const head = /<head>([^]*?)<\/head>/.exec(res.body)![1]!
    t.match(head, '<meta name="description" content="Shelf item one" data-head>', "the page's description wins")
    t.equal(head.match(/name="description"/g)?.length, 1)
    t.match(head, '<meta name="robots" content="noarchive" data-head>', "the layout's robots entry stays")
  })
})

t.test('the layout table is checked when the app is built', async (t) => {
  const build = await buildFor('fixture-markup')
  const quiet = new Writable({ write: (_chunk, _encoding, done) => done() })
  // buildApp with the fixture app's pages and a router made from the tables under test.
  const createRouterChecked = (routes: RouteTable, layouts?: LayoutTable) => {
    const router = createRouter(routes, layouts)
    const app = buildApp(testConfig(build.clientDir), {
      logStream: quiet,
      application: { definition: { ...fixtureDefinition, router } as never, apiRoutes: [], configVariables: [] },
    })
    t.teardown(() => app.close())
    return router
  }
  const root = layout()({ id: 'root', mode: 'static' })
  const live = layout<{ n: number }>()({ id: 'live', mode: 'dynamic', parent: root })
  const page = (layoutDef: typeof root | typeof live, mode: 'static' | 'dynamic' = 'dynamic') => ({ pattern: '/p', mode, layout: layoutDef }) as const
  t.throws(() => createRouterChecked({ p: page(live, 'static') }, { root, live }), /Route "p" is static but sits in the dynamic layout "live"/)
  t.throws(() => createRouterChecked({ p: page(live) }, { root }), /Route "p": its layout "live" is not in the layout table/)
  t.throws(() => createRouterChecked({}, { root, other: layout()({ id: 'other', mode: 'static' }) }), /exactly one root layout[^]*2: root, other/)
  t.throws(() => createRouterChecked({}, { root, misnamed: live }), /Layout "misnamed": its id is "live"/)
  const acting = layout()({ id: 'acting', mode: 'static', parent: root, actions: { save: [] } })
  t.throws(
    () => createRouterChecked({ p: route()({ pattern: '/p', mode: 'static', layout: acting, actions: { save: [] } }) }, { root, acting }),
    /Action "save" is declared by both route "p" and layout "acting"/,
  )
  t.throws(() => createRouterChecked({ p: page(live) }), /names layout "live", but the application has no layout table/)
  // Guards: what the types refuse, refused at start too (a table built at run time).
  const guardedStatic = { id: 'locked', mode: 'static', parent: root, guard: guarded() } as never as typeof root
  t.throws(() => createRouterChecked({}, { root, locked: guardedStatic }), /Layout "locked" is static but has a guard/)
  t.throws(
    () => createRouterChecked({ p: { pattern: '/p', mode: 'static', guard: guarded() } as never }, { root }),
    /Route "p" is static but has a guard/,
  )
  t.throws(
    () => createRouterChecked({ p: { pattern: '/p', mode: 'static', guard: guarded() } as never }),
    /Route "p" is static but has a guard/,
    'an application without layouts too',
  )
  const locker = layout()({ id: 'locker', mode: 'dynamic', parent: root, guard: guarded() })
  t.throws(() => createRouterChecked({}, { root, locker }), /Layout "locker" is declared guarded but its server module gives no guard function/)
  const router = createRouter({ p: page(live), q: { pattern: '/q', mode: 'static' } }, { root, live })
  t.same(
    router.layoutsOf('p').map((l) => l.id),
    ['root', 'live'],
  )
  t.same(
    router.layoutsOf('q').map((l) => l.id),
    ['root'],
    'a route without a layout is in the root',
  )
  t.same(
    router.layoutsOf(undefined).map((l) => l.id),
    ['root'],
    'so is a path no route matches',
  )
})
