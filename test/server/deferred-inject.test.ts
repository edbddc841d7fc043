/**
 * The test helpers finish a test of a page with deferred parts, as a browser and as a
 * crawler: an injected request has no socket, and the demo's slow part holds no timer
 * that keeps the process alive, so without the helper's own hold the process would end
 * with the test still waiting.
 */
import t from 'tap'
import { createTestApp } from '../helpers/app.js'

const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'

t.test('an injected crawler request for a deferred page gets the whole page', async (t) => {
  const { app } = await createTestApp(t, 'production', { config: { demoSlowMs: 50 } })
  const response = await app.inject({ url: '/items/7/stats', headers: { 'user-agent': GOOGLEBOT } })
  t.equal(response.statusCode, 200)
  t.match(response.body, 'Median', 'the slow part is in place')
  t.ok(response.body.endsWith('</html>'), 'and the document is complete')
})

t.test('an injected browser request for a deferred page ends with its part', async (t) => {
  const { app } = await createTestApp(t, 'production', { config: { demoSlowMs: 50 } })
  const response = await app.inject({ url: '/items/7/stats' })
  t.equal(response.statusCode, 200)
  t.match(response.body, '"key":"slow"', "the part's value came in the stream")
})

t.test('injected page data for a deferred page ends with its part', async (t) => {
  const { app } = await createTestApp(t, 'production', { config: { demoSlowMs: 50 } })
  const response = await app.inject({ url: '/_data/items/7/stats' })
  t.equal(response.statusCode, 200)
  t.match(response.body, '"key":"slow"', "the part's line came")
})
