import t from 'tap'
import { createRouter, route } from '../../shared/framework/route-table.js'
import { href, matchRoute } from '../../shared/routes.js'

t.test('matchRoute finds the route and decoded params of a pathname', async (t) => {
  const cases: Array<[path: string, id: string | null, params?: Record<string, string>]> = [
    ['/', 'home', {}],
    ['/about', 'about', {}],
    ['/items/7', 'items', { id: '7' }],
    ['/items/007', 'items', { id: '007' }],
    ['/items/123456789012345', 'items', { id: '123456789012345' }],
    ['/items/abc', null], // fails the digits check: a 404, not the next route
    ['/items/7a', null],
    ['/items/-1', null],
    ['/items/1234567890123456', null], // too long to stay an exact number
    ['/items/%37', 'items', { id: '7' }], // percent-encoded digit decodes to "7"
    ['/items/%E0%A4%A', null], // malformed encoding: no match, no throw
    ['/items/', null],
    ['/items', null],
    ['/items/7/extra', null],
    ['/about/', null], // trailing slash is the server's redirect, not a match
    ['/About', null],
    ['/nope', null],
    ['', null],
  ]
  for (const [path, id, params] of cases) {
    const match = matchRoute(path)
    t.equal(match?.id ?? null, id, `${JSON.stringify(path)} -> ${id}`)
    if (params) t.same(match?.params, params, `${JSON.stringify(path)} params`)
  }
})

t.test('href builds URLs and encodes params', async (t) => {
  t.equal(href('home'), '/')
  t.equal(href('about'), '/about')
  t.equal(href('items', { id: '7' }), '/items/7')
  const router = createRouter({ doc: route<null>()({ pattern: '/docs/:slug/:part', mode: 'static' }) })
  t.equal(router.href('doc', { slug: 'a b/c', part: '?#' }), '/docs/a%20b%2Fc/%3F%23')
  // What href encodes, match decodes back.
  t.same(router.match(router.href('doc', { slug: 'a b/c', part: 'é' }))?.params, { slug: 'a b/c', part: 'é' })
})

t.test('first matching route wins, in table order', async (t) => {
  const router = createRouter({
    newItem: route<null>()({ pattern: '/items/new', mode: 'static' }),
    item: route<null>()({ pattern: '/items/:id', mode: 'dynamic' }),
  })
  t.equal(router.match('/items/new')?.id, 'newItem')
  t.equal(router.match('/items/9')?.id, 'item')
})

t.test('literal segments are matched literally, not as regular expressions', async (t) => {
  const router = createRouter({ file: route<null>()({ pattern: '/a.b/(x)', mode: 'static' }) })
  t.equal(router.match('/a.b/(x)')?.id, 'file')
  t.equal(router.match('/aXb/(x)'), null)
})

t.test('a malformed pattern is refused when the table is created', async (t) => {
  t.throws(() => createRouter({ bad: route<null>()({ pattern: 'no-slash', mode: 'static' }) }), /must start with "\/"/)
  t.throws(() => createRouter({ bad: route<null>()({ pattern: '/a:b', mode: 'static' }) }), /not a valid param name/)
})
