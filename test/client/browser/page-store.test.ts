import t from 'tap'
import { PageModules } from '../../../client/framework/browser/page-modules.js'
import { loadPage } from '../../../client/framework/browser/load-page.js'
import { PageStore } from '../../../client/framework/browser/page-store.js'
import { layoutReached, reaches, revalidation } from '../../../client/framework/browser/revalidation.js'
import type { ChangedOnWire } from '../../../shared/framework/actions.js'
import { LayoutData } from '../../../client/framework/browser/layout-data.js'
import type { PagePayload, RenderPayload } from '../../../shared/framework/page-payload.js'
import { createRouter, layout, type Router } from '../../../shared/framework/route-table.js'

function storeAt(clock: { now: number }, router: Router<any, any> = createRouter({})) {
  return new PageStore({
    buildId: 'b1',
    router,
    modules: new PageModules({}),
    layouts: new LayoutData(router, () => clock.now),
    onUnresolved: () => {},
    now: () => clock.now,
    load: loadPage,
  })
}

const page = (mode: 'static' | 'dynamic'): RenderPayload => ({
  kind: 'page',
  status: 200,
  buildId: 'b1',
  routeId: 'x',
  mode,
  params: {},
  data: null,
})

t.test('a dynamic page is fresh for 30 s, a static one for 300 s, from when it was fetched', async (t) => {
  const clock = { now: 1_000_000 }
  const store = storeAt(clock)
  store.set('/dynamic', { payload: page('dynamic') })
  store.set('/static', { payload: page('static') })
  const cases: Array<[elapsed: number, dynamic: boolean, fixed: boolean]> = [
    [0, true, true],
    [29_999, true, true],
    [30_000, false, true],
    [299_999, false, true],
    [300_000, false, false],
  ]
  for (const [elapsed, dynamic, fixed] of cases) {
    clock.now = 1_000_000 + elapsed
    t.equal(store.isFresh('/dynamic'), dynamic, `dynamic after ${elapsed} ms`)
    t.equal(store.isFresh('/static'), fixed, `static after ${elapsed} ms`)
  }
})

t.test('a not-found page or a refusal is cached like a dynamic page; a server failure or a refused form never is', async (t) => {
  const clock = { now: 0 }
  const store = storeAt(clock)
  store.set('/gone', { payload: { kind: 'not-found', status: 404, buildId: 'b1' } })
  store.set('/forbidden', { payload: { kind: 'error', status: 403, message: 'Sign in to see this list.', buildId: 'b1' } })
  store.set('/broken', { payload: { kind: 'error', status: 500, digest: 'x', buildId: 'b1' } })
  store.set(
    '/too-big',
    { payload: { kind: 'error', status: 413, message: 'The request body is larger than 1 MiB.', buildId: 'b1' } },
    Number.NEGATIVE_INFINITY,
  )
  store.set('/refused', {
    payload: {
      kind: 'page',
      status: 422,
      buildId: 'b1',
      routeId: 'x',
      mode: 'dynamic',
      params: {},
      data: null,
      action: { action: 'send', fieldErrors: { email: 'Enter an email address.' }, values: { email: 'bad' } },
    },
  })
  t.equal(store.isFresh('/gone'), true)
  t.equal(store.isFresh('/forbidden'), true, "a loader's refusal, fetched by a GET: a hover does not fetch it again")
  // Asked at once, while a refusal fetched now would still be fresh.
  t.equal(store.isFresh('/too-big'), false, "a form post's refusal, put in as the first document's stale")
  t.equal(store.isFresh('/refused'), false, "a page rendered again with a refused form's errors")
  t.equal(store.isFresh('/broken'), false, 'a server failure')
  clock.now = 30_000
  t.equal(store.isFresh('/forbidden'), false, '...for as long as a dynamic page')
  t.ok(store.read('/broken'), 'still readable, for the page showing it')
})

t.test("a page whose loaders changed the visitor's state (a flash message taken) is never fresh", async (t) => {
  const store = storeAt({ now: 0 })
  store.set('/thanked', { payload: { ...(page('dynamic') as PagePayload), once: true } })
  store.set('/plain', { payload: page('dynamic') })
  t.equal(store.isFresh('/thanked'), false, 'the next visit asks again')
  t.equal(store.isFresh('/plain'), true)
  t.ok(store.read('/thanked'), 'still readable, for the page showing it')
})

t.test('invalidate() marks stale what an action reached, but the page on screen; revalidation says what it reached', async (t) => {
  const root = layout()({ id: 'root', mode: 'static' })
  const shelf = layout()({ id: 'shelf', mode: 'dynamic', parent: root })
  const router = createRouter(
    { onShelf: { pattern: '/shelf/:n', mode: 'dynamic', layout: shelf }, alone: { pattern: '/alone', mode: 'dynamic' } },
    { root, shelf },
  )
  const clock = { now: 0 }
  const store = storeAt(clock, router)
  const at = (routeId: string): RenderPayload => ({ ...(page('dynamic') as PagePayload), routeId })
  const fill = () => {
    for (const key of ['/shelf/1', '/shelf/2', '/alone']) store.set(key, { payload: at(key === '/alone' ? 'alone' : 'onShelf') })
    store.set('/broken', { payload: { kind: 'error', status: 404, buildId: 'b1', message: 'No page' } })
    store.set('/shared', { payload: { ...(page('static') as PagePayload), routeId: 'alone' } })
  }
  const fresh = () => ['/shelf/1', '/shelf/2', '/alone', '/broken'].filter((key) => store.isFresh(key))
  // What the navigation engine does after an action that says it `changed` this.
  const invalidate = (changed: ChangedOnWire | undefined, shown: string | undefined) =>
    store.invalidate(
      (payload) => reaches(changed, payload, router),
      (id) => layoutReached(changed, id),
      shown,
    )

  fill()
  invalidate(undefined, '/shelf/1')
  t.same(fresh(), ['/shelf/1'], 'naming nothing: every page but the one on screen')
  t.ok(store.isFresh('/shared'), 'but a static page: its answer is the same whatever an action did')
  t.equal(store.read('/shelf/2'), undefined, 'a stale page is never shown as it is')
  t.ok(store.read('/shelf/1'), 'the page on screen stays until its reload replaces it')

  fill()
  invalidate({ layouts: ['shelf'] }, undefined)
  t.same(fresh(), ['/alone'], 'a layout named: the pages inside it (and a failure screen)')
  t.ok(reaches({ layouts: ['shelf'] }, at('onShelf'), router), 'a page inside a named layout is reached')
  t.notOk(reaches({ routes: ['onShelf'] }, at('alone'), router), 'a page of another route is not')

  fill()
  invalidate({ routes: ['alone'] }, undefined)
  t.same(fresh(), ['/shelf/1', '/shelf/2'], 'a route named: its pages')

  // `changed: {}`: the action changed no page's data (a colour theme): nothing is reached.
  fill()
  const engine = revalidation(
    store,
    router,
    () => '/shelf/1',
    () => t.fail('no document load'),
  )
  await engine.revalidate({})
  engine.invalidate({})
  t.same(fresh(), ['/shelf/1', '/shelf/2', '/alone', '/broken'], 'every page stays fresh, a failure screen too')
  t.notOk(store.isLoading('/shelf/1'), 'the page on screen is not loaded again')
})

t.test('a change of identity (another tab signed in or out) makes everything held stale', async (t) => {
  const clock = { now: 1_000_000 }
  let identity = 'ada-1'
  const router = createRouter({})
  const layouts = new LayoutData(router, () => clock.now)
  const loads: string[] = []
  const store = new PageStore({
    buildId: 'b1',
    router,
    modules: new PageModules({}),
    layouts,
    onUnresolved: () => {},
    now: () => clock.now,
    identity: () => identity,
    firstIdentity: 'ada-1',
    load: async (key) => {
      loads.push(key)
      return { kind: 'ready', page: { payload: page('dynamic') }, fetchedAt: clock.now }
    },
  })
  store.set('/a', { payload: page('dynamic') })
  store.set('/b', { payload: page('dynamic') })
  t.ok(store.read('/b'), 'held while the identity stands')
  await store.load('/b')
  t.same(loads, [], 'a fresh page comes from the cache')

  identity = 'bob-1'
  t.ok(store.read('/b'), 'nothing changes until the store is asked to load or checks')
  store.checkIdentity()
  t.equal(store.read('/a'), undefined, 'every page is stale, the one on screen too')
  t.equal(store.read('/b'), undefined)
  await store.load('/b')
  t.same(loads, ['/b'], 'the next visit asks the server')
  identity = ''
  await store.load('/b')
  t.same(loads, ['/b', '/b'], 'a sign-out elsewhere too, checked by load() itself')
})
