import t from 'tap'
import { LayoutData } from '../../../client/framework/browser/layout-data.js'
import { layoutReached } from '../../../client/framework/browser/revalidation.js'
import type { PagePayload } from '../../../shared/framework/page-payload.js'
import { createRouter, layout } from '../../../shared/framework/route-table.js'

const root = layout()({ id: 'root', mode: 'static' })
const shelf = layout<{ n: number }>()({ id: 'shelf', mode: 'dynamic', parent: root })
const catalog = layout<{ n: number }>()({ id: 'catalog', mode: 'static', parent: root })
const router = createRouter(
  {
    onShelf: { pattern: '/shelf', mode: 'dynamic', layout: shelf },
    inCatalog: { pattern: '/catalog', mode: 'static', layout: catalog },
  },
  { root, shelf, catalog },
)

const page = (routeId: string, layouts?: Record<string, unknown>): PagePayload => ({
  kind: 'page',
  status: 200,
  buildId: 'b',
  routeId,
  mode: 'dynamic',
  params: {},
  data: null,
  ...(layouts ? { layouts } : {}),
})

t.test("layout data is cached for its layout's lifetime: 30 s dynamic, 300 s static", async (t) => {
  const clock = { now: 0 }
  const data = new LayoutData(router, () => clock.now)
  data.complete(page('onShelf', { shelf: { n: 1 } }), new Map(), 0)
  data.complete(page('inCatalog', { catalog: { n: 2 } }), new Map(), 0)
  t.same([...data.freshFor('onShelf')], [['shelf', { n: 1 }]])
  t.same([...data.freshFor('inCatalog')], [['catalog', { n: 2 }]], "only the route's own layouts")
  clock.now = 29_999
  t.equal(data.freshFor('onShelf').size, 1)
  clock.now = 30_000
  t.equal(data.freshFor('onShelf').size, 0, 'a dynamic layout is stale after 30 s')
  t.equal(data.freshFor('inCatalog').size, 1)
  clock.now = 300_000
  t.equal(data.freshFor('inCatalog').size, 0, 'a static one after 300 s')
})

t.test('an answer that left cached data out gets it back; one that brought data replaces it', async (t) => {
  const data = new LayoutData(router, () => 0)
  const cached = new Map([['shelf', { n: 1 }]])
  const completed = data.complete(page('onShelf'), cached, 0)
  t.same(completed.layouts, { shelf: { n: 1 } })
  const fresher = data.complete(page('onShelf', { shelf: { n: 2 } }), cached, 0)
  t.same(fresher.layouts, { shelf: { n: 2 } }, 'what the server sent wins')
  t.same([...data.freshFor('onShelf')], [['shelf', { n: 2 }]])
  data.forget((id) => layoutReached(undefined, id))
  t.equal(data.freshFor('onShelf').size, 0, 'an action that names nothing empties it')
})

t.test('an action that names layouts forgets only theirs', async (t) => {
  const data = new LayoutData(router, () => 0)
  data.complete(page('onShelf', { root: {}, shelf: { n: 1 } }), new Map(), 0)
  data.forget((id) => layoutReached({ routes: ['onShelf'] }, id))
  t.same([...data.freshFor('onShelf').keys()], ['root', 'shelf'], 'a route named: its layouts stay cached')
  data.forget((id) => layoutReached({ layouts: ['shelf'] }, id))
  t.same([...data.freshFor('onShelf').keys()], ['root'], 'the named layout is asked for again, the root is not')
})

t.test("a layout's data asked for before an action changed it completes its page but is not kept", async (t) => {
  const data = new LayoutData(router, () => 0)
  const asked = data.changes
  data.forget((id) => layoutReached({ layouts: ['shelf'] }, id))
  const before = data.complete(page('onShelf', { root: { r: 1 }, shelf: { n: 1 } }), new Map(), 0, asked)
  t.same(before.layouts, { root: { r: 1 }, shelf: { n: 1 } }, 'its own page shows what it brought')
  t.same([...data.freshFor('onShelf')], [['root', { r: 1 }]], 'the layout the action did not name is kept; the next page asks for the other again')
  data.complete(page('onShelf', { shelf: { n: 2 } }), new Map(), 0, data.changes)
  t.same([...data.freshFor('onShelf')].at(-1), ['shelf', { n: 2 }], 'data asked for after the change is kept')
})
