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
