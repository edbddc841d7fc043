// test-needs: redis
import t from 'tap'
import { listenTestApp } from '../helpers/app.js'
import { startRedis } from '../helpers/redis.js'
import { scrape, scrapeUntil, samples, total } from '../helpers/prometheus.js'

type Test = Parameters<typeof listenTestApp>[0]

const METRICS_ON = { metrics: { host: '127.0.0.1', port: 0 } }

async function appWithMetrics(t: Test, which: 'production' | 'fixture' = 'production', config: object = {}) {
  const testApp = await listenTestApp(t, which, { config: { ...METRICS_ON, ...config } })
  const address = testApp.app.metricsAddress()
  if (!address) throw new Error('no metrics listener')
  return { ...testApp, metricsOrigin: `http://127.0.0.1:${address.port}` }
}

async function get(origin: string, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(origin + path, { headers, redirect: 'manual', signal: AbortSignal.timeout(10_000) })
  await response.arrayBuffer()
  return response
}

t.test('requests are counted by route id, method, status class and kind, never by URL', async (t) => {
  const { origin, metricsOrigin } = await appWithMetrics(t)
  await get(origin, '/about')
  await get(origin, '/about')
  await get(origin, '/items/7')
  await get(origin, '/_data/items/7')
  await get(origin, '/api/health')
  await get(origin, '/assets/no-such-file.js')
  // A scan of distinct URLs adds no series.
  for (let i = 0; i < 40; i++) await get(origin, `/scan-${i}/%E2%9C%93?q=${i}`)

  const families = await scrapeUntil(metricsOrigin, (f) => total(f, 'http_requests_total') >= 46, 'every request is counted')
  t.equal(total(families, 'http_requests_total', { route: 'about', method: 'GET', status_class: '2xx', kind: 'document' }), 2)
  t.equal(total(families, 'http_requests_total', { route: 'items', kind: 'document', status_class: '2xx' }), 1)
  t.equal(total(families, 'http_requests_total', { route: 'items', kind: 'data', status_class: '2xx' }), 1)
  t.equal(total(families, 'http_requests_total', { route: '/api/health', kind: 'api', status_class: '2xx' }), 1)
  t.equal(total(families, 'http_requests_total', { kind: 'static', status_class: '4xx' }), 1)
  t.equal(total(families, 'http_requests_total', { route: 'unmatched', kind: 'document', status_class: '4xx' }), 40)
  t.equal(total(families, 'http_request_duration_seconds_count', { route: 'items', kind: 'document' }), 1, 'the latency histogram counts it too')

  const labelValues = samples(families, 'http_requests_total').flatMap((sample) => Object.values(sample.labels))
  t.notOk(
    labelValues.some((value) => value.includes('scan')),
    'no label carries a URL',
  )
  t.ok(samples(families, 'http_requests_total').length < 12, 'the series stay few')

  t.ok(total(families, 'app_step_duration_seconds_count', { step: 'loader', route: 'items', name: 'page' }) >= 2, 'the page loader is timed')
  t.ok(total(families, 'app_step_duration_seconds_count', { step: 'loader', route: 'items', name: 'items' }) >= 1, "the layout's loader too")
  t.ok(total(families, 'app_step_duration_seconds_count', { step: 'render', route: 'items' }) >= 1, 'and the render')
  t.equal(total(families, 'app_static_page_cache_lookups_total', { result: 'hit' }), 1, 'the second /about came from memory')
  t.ok(total(families, 'app_static_page_cache_entries') >= 1)
  t.ok(total(families, 'app_static_page_cache_bytes') > 1000, 'the kept bytes are counted')
  t.equal(total(families, 'app_draining'), 0)
})

t.test('the process is measured: event loop, memory, garbage collection, handles', async (t) => {
  const { origin, metricsOrigin } = await appWithMetrics(t)
  await get(origin, '/about')
  const families = await scrape(metricsOrigin)
  for (const name of [
    'nodejs_eventloop_utilization_ratio',
    'nodejs_eventloop_delay_p99_seconds',
    'nodejs_eventloop_lag_p99_seconds',
    'nodejs_heap_size_used_bytes',
    'process_resident_memory_bytes',
    'nodejs_gc_duration_seconds',
    'nodejs_active_handles_total',
  ]) {
    // A histogram with labels has no sample before its first observation (no collection yet): its family is declared.
    t.ok(families.types.has(name), `${name} is there`)
  }
  const utilization = total(families, 'nodejs_eventloop_utilization_ratio')
  t.ok(utilization >= 0 && utilization <= 1, 'utilization is a ratio')
})

t.test('the metrics answer only on their own port, and only GET /metrics', async (t) => {
  const { origin, metricsOrigin } = await appWithMetrics(t)
  const publicMetrics = await fetch(`${origin}/metrics`)
  t.equal(publicMetrics.status, 404, 'the public port has no /metrics')
  t.notMatch(await publicMetrics.text(), /http_requests_total/)

  const scraped = await fetch(`${metricsOrigin}/metrics`)
  t.equal(scraped.status, 200)
  t.match(scraped.headers.get('content-type'), /^text\/plain; version=0\.0\.4/)
  await scraped.arrayBuffer()
  const other = await fetch(`${metricsOrigin}/`)
  t.equal(other.status, 404)
  await other.arrayBuffer()
  const posted = await fetch(`${metricsOrigin}/metrics`, { method: 'POST', body: 'x' })
  t.equal(posted.status, 405)
  t.equal(posted.headers.get('allow'), 'GET, HEAD')
  await posted.arrayBuffer()
})

t.test('without METRICS_PORT nothing is kept and nothing listens', async (t) => {
  const { app, origin } = await listenTestApp(t)
  t.equal(app.metrics.enabled, false)
  t.equal(app.metricsAddress(), undefined)
  t.equal((await get(origin, '/metrics')).status, 404)
})

t.test('deferred parts are counted by outcome', async (t) => {
  const { origin, metricsOrigin } = await appWithMetrics(t, 'production', { demoSlowMs: 0 })
  await get(origin, '/items/7/stats')
  const families = await scrapeUntil(metricsOrigin, (f) => total(f, 'app_deferred_parts_total') >= 1, 'the part is counted')
  t.equal(total(families, 'app_deferred_parts_total', { route: 'stats', outcome: 'settled' }), 1)
  t.equal(total(families, 'app_deferred_parts_total', { outcome: 'failed' }), 0)
})

t.test('rate-limit refusals and actions are counted', async (t) => {
  const { origin, metricsOrigin } = await appWithMetrics(t, 'fixture', {
    rateLimit: { forms: 1, monitoring: 0, windowMs: 60_000, redisUrl: undefined },
  })
  const sign = () =>
    fetch(`${origin}/guestbook`, {
      method: 'POST',
      body: '_action=sign&name=Ann',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
    }).then(async (response) => (await response.arrayBuffer(), response.status))
  t.equal(await sign(), 303)
  t.equal(await sign(), 429)
  const families = await scrapeUntil(metricsOrigin, (f) => total(f, 'app_rate_limited_requests_total') >= 1, 'the refusal is counted')
  t.equal(total(families, 'app_rate_limited_requests_total', { limit: 'forms' }), 1)
  // Refused before the router matched it: no route id to name.
  t.equal(total(families, 'http_requests_total', { route: 'unmatched', kind: 'action', status_class: '4xx' }), 1)
  t.equal(total(families, 'http_requests_total', { route: 'guestbook', kind: 'action', status_class: '3xx' }), 1)
  t.equal(total(families, 'app_step_duration_seconds_count', { step: 'action', route: 'guestbook', name: 'sign' }), 1)
})

t.test('Redis is watched: up, then down, with the session store errors counted', async (t) => {
  const redis = await startRedis(t)
  const { origin, metricsOrigin } = await appWithMetrics(t, 'production', {
    sessions: { store: { kind: 'redis', url: redis.url }, idleTimeoutS: 3600, absoluteTimeoutS: 86_400 },
  })
  t.equal(total(await scrape(metricsOrigin), 'app_redis_up'), 1)
  const starred = await fetch(`${origin}/items/7`, {
    method: 'POST',
    body: '_action=star&id=3&starred=yes',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
  })
  t.equal(starred.status, 303, 'a star is kept in the session')
  const cookie = starred.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .find((pair) => pair?.startsWith('session='))!
  await redis.stop()
  await scrapeUntil(metricsOrigin, (f) => total(f, 'app_redis_up') === 0, 'Redis is seen down')
  t.equal((await get(origin, '/items/7', { cookie })).status, 503, 'the page that reads the session cannot')
  const families = await scrapeUntil(metricsOrigin, (f) => total(f, 'app_session_store_errors_total') >= 1, 'the store error is counted')
  t.equal(total(families, 'http_requests_total', { route: 'items', status_class: '5xx' }), 1)
})

t.test('SERVER_TIMING=on: the steps of a computed page in its Server-Timing header; off by default', async (t) => {
  const { origin } = await listenTestApp(t, 'production', { config: { serverTiming: true } })
  const page = await get(origin, '/items/7')
  const timing = page.headers.get('server-timing') ?? ''
  t.match(timing, /(^|, )loader;desc="items";dur=\d+\.\d/, "the layout's loader")
  t.match(timing, /(^|, )loader;desc="page";dur=\d+\.\d/, "the page's loader")
  t.match(timing, /(^|, )render;dur=\d+\.\d/, 'the render')
  const data = await get(origin, '/_data/items/7')
  t.match(data.headers.get('server-timing'), /loader;desc="page";dur=/, 'page data too')
  const guarded = await get(origin, '/account')
  t.match(guarded.headers.get('server-timing'), /(^|, )guard;dur=\d/, 'a guarded page times its guard')

  const off = await listenTestApp(t)
  t.equal((await get(off.origin, '/items/7')).headers.get('server-timing'), null)
})
