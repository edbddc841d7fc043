import t from 'tap'
import { createRouter, route } from '../../shared/framework/route-table.js'
import * as searchParam from '../../shared/framework/search-param.js'
import { formatSearch, parseSearch, SearchParamError } from '../../shared/framework/search-params.js'

const decl = {
  q: searchParam.text({ maxLength: 20 }),
  page: searchParam.int({ default: 1, min: 1, max: 50 }),
  sort: searchParam.oneOf(['new', 'old'], { default: 'new' }),
}
const parse = (query: string) => parseSearch(decl, new URLSearchParams(query))

t.test('declared parameters are parsed; missing ones take their default or stay undefined', async (t) => {
  t.same(parse(''), { q: undefined, page: 1, sort: 'new' })
  t.same(parse('q=caf%C3%A9+%26+cr%C3%A8me&page=7&sort=old&utm_source=x'), { q: 'café & crème', page: 7, sort: 'old' }, 'others ignored')
  t.same(parse('q='), { q: '', page: 1, sort: 'new' }, 'an empty text is a text')
})

t.test('a value the route does not take is refused, naming the parameter and what it takes', async (t) => {
  const cases: Array<[string, string]> = [
    ['page=abc', 'The query parameter "page" must be a whole number from 1 to 50.'],
    ['page=0', 'The query parameter "page" must be a whole number from 1 to 50.'],
    ['page=51', 'The query parameter "page" must be a whole number from 1 to 50.'],
    ['page=1.5', 'The query parameter "page" must be a whole number from 1 to 50.'],
    ['page=', 'The query parameter "page" must be a whole number from 1 to 50.'],
    ['page=99999999999999999999', 'The query parameter "page" must be a whole number from 1 to 50.'],
    ['sort=NEW', 'The query parameter "sort" must be one of "new", "old".'],
    [`q=${'x'.repeat(21)}`, 'The query parameter "q" must be text of at most 20 characters.'],
    ['page=1&page=2', 'The query parameter "page" is given 2 times; give it once.'],
  ]
  for (const [query, message] of cases) t.throws(() => parse(query), new SearchParamError(message), query)
})

t.test('href() writes the query typed, in declaration order, leaving defaults out', async (t) => {
  const router = createRouter({
    notes: route()({ pattern: '/notes', mode: 'dynamic', search: decl }),
    note: route()({ pattern: '/notes/:id', mode: 'dynamic', search: { tab: searchParam.oneOf(['text', 'history']) } }),
    plain: route()({ pattern: '/plain', mode: 'dynamic' }),
  })
  t.equal(router.href('notes'), '/notes')
  t.equal(router.href('notes', {}, { sort: 'old', q: 'a b&c', page: 2 }), '/notes?q=a+b%26c&page=2&sort=old')
  t.equal(router.href('notes', {}, { page: 1, sort: 'new' }), '/notes', 'defaults are the URL without them')
  t.equal(router.href('note', { id: '7' }, { tab: 'history' }), '/notes/7?tab=history')
  t.equal(router.href('plain'), '/plain')
  t.equal(formatSearch(decl, { q: '' }), '?q=', 'an empty text is written, it is not the default')
  // The query href writes is read back as the same values.
  t.same(parse(router.href('notes', {}, { q: 'ü?=&#', page: 50 }).split('?')[1]!), { q: 'ü?=&#', page: 50, sort: 'new' })
})
