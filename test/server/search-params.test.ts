/**
 * A route's declared query on every surface (the demo's `/items/:id/stats?tags=`): the
 * loader gets it parsed; a value the route does not take is its 400, in its layouts for
 * the document, as JSON for the page data, and for a form posted to that URL.
 */
import t from 'tap'
import { createTestApp } from '../helpers/app.js'
import { bootstrapOf } from '../helpers/page-html.js'

t.test('the statistics page reads ?tags=, typed, and refuses what it does not take', async (t) => {
  const { app } = await createTestApp(t, 'production', { config: { demoSlowMs: 0 } })

  const three = await app.inject({ url: '/items/7/stats?tags=3' })
  t.equal(three.statusCode, 200)
  t.equal(/Tags: ([^<]*)</.exec(three.body)?.[1]?.split(', ').length, 3, 'three tags listed')
  t.match(three.body, 'href="/items/7/stats">Every tag</a>', 'href() leaves the default out')
  const all = await app.inject({ url: '/items/7/stats' })
  t.equal(/Tags: ([^<]*)</.exec(all.body)?.[1]?.split(', ').length, 12, 'the default: every tag')
  t.match(all.body, 'href="/items/7/stats?tags=3"', 'href() writes a typed value')

  for (const query of ['tags=abc', 'tags=0', 'tags=13', 'tags=3&tags=4', 'tags=%FF']) {
    const page = await app.inject({ url: `/items/7/stats?${query}` })
    t.equal(page.statusCode, 400, `${query}: 400`)
    t.match(
      page.body,
      /The query parameter &quot;tags&quot; (must be a whole number from 1 to 12|is given 2 times; give it once)\./,
      `${query}: says why`,
    )
    t.match(page.body, 'aria-label="Item lists"', `${query}: inside the items layout`)
    const data = await app.inject({ url: `/_data/items/7/stats?${query}`, headers: { accept: 'application/json' } })
    t.equal(data.statusCode, 400)
    t.match(JSON.parse(data.body), { kind: 'error', status: 400, message: /The query parameter "tags"/ }, `${query}: the page data says the same`)
  }
  t.notOk(bootstrapOf(three.body).deferred === undefined, 'the page still defers its slow part')

  const post = await app.inject({
    method: 'POST',
    url: '/items/7/stats?tags=abc',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', origin: 'http://localhost:80' },
    payload: '_action=star&id=7&starred=yes',
  })
  t.equal(post.statusCode, 400, 'a form posted to that URL is refused the same way')
  t.match(JSON.parse(post.body), { error: { message: 'The query parameter "tags" must be a whole number from 1 to 12.' } })
})

t.test("the statistics page's tag form works without JavaScript: a plain GET of the page", async (t) => {
  const { app } = await createTestApp(t, 'production', { config: { demoSlowMs: 0 } })

  const page = await app.inject({ url: '/items/7/stats' })
  const form = /<form[^>]*role="search"[^>]*>[^]*?<\/form>/.exec(page.body)?.[0] ?? ''
  const opening = /^<form[^>]*>/.exec(form)?.[0] ?? ''
  t.match(opening, 'method="get"', 'a GET...')
  t.match(opening, 'action="/items/7/stats"', '...to the page it is on')
  t.match(form, /<select name="tags" id="[^"]+">/, 'its field named as the route declares')
  t.match(form, '<option value="12" selected="">All</option>', 'the default chosen')
  t.match(form, '<button type="submit">Show</button>')

  // What the browser sends for that form, the five chosen.
  const five = await app.inject({ url: '/items/7/stats?tags=5' })
  t.equal(five.statusCode, 200)
  t.equal(/Tags: ([^<]*)</.exec(five.body)?.[1]?.split(', ').length, 5, 'five tags listed')
  t.match(five.body, '<option value="5" selected="">The 5 most common</option>', 'the form shows the choice on screen')
})
