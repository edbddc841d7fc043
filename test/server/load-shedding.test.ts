/**
 * Load shedding with a real listening instance and a real blocked event loop: an /api route
 * blocks the loop as a runaway render would, and what the instance answers meanwhile is
 * read over HTTP.
 */
import type { FastifyPluginAsync } from 'fastify'
import t from 'tap'
import { listenTestApp } from '../helpers/app.js'
import { scrape, total } from '../helpers/prometheus.js'

/** What the blocking route waits on: nothing ever wakes it, so each wait runs its whole time. */
const neverWoken = new Int32Array(new SharedArrayBuffer(4))

/**
 * Blocks the event loop for `?ms=` milliseconds, as CPU-bound work does; never shed itself,
 * so it keeps the loop behind. The loop is held by `Atomics.wait`, not by spinning: the
 * instance sees the same late timers, and the test leaves the cores to the rest of the suite.
 */
const blocker: FastifyPluginAsync = async (api) => {
  api.get('/test/block', { config: { shed: false } }, async (request) => {
    const ms = Number((request.query as { ms?: string }).ms ?? 300)
    Atomics.wait(neverWoken, 0, 0, ms)
    return { blocked: ms }
  })
  api.get('/test/echo', async () => ({ ok: true }))
}

async function get(origin: string, path: string) {
  const response = await fetch(origin + path, { signal: AbortSignal.timeout(20_000) })
  return { status: response.status, headers: response.headers, body: await response.text() }
}

async function waitForStatus(origin: string, path: string, status: number) {
  const deadline = Date.now() + 20_000
  for (;;) {
    if ((await get(origin, path)).status === status) return
    if (Date.now() > deadline) throw new Error(`${path} never answered ${status}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

t.test('an instance whose loop fell behind sheds new work with a fast 503, in each kind form; probes still answer', async (t) => {
  const { origin, app } = await listenTestApp(t, 'production', {
    // Far above what a busy test machine's idle loop shows, far below the runaway work's.
    config: { shedding: { maxEventLoopDelayMs: 100, maxEventLoopUtilization: 0 }, metrics: { host: '127.0.0.1', port: 0 } },
    sheddingSampleIntervalMs: 250,
    apiRoutes: [blocker],
  })
  const metricsOrigin = `http://127.0.0.1:${app.metricsAddress()!.port}`
  // The start itself can hold the loop up for a moment.
  await waitForStatus(origin, '/api/ready', 200)

  // Runaway work, back to back, until the test has seen what it needs.
  let blocking = true
  const runaway = (async () => {
    while (blocking) t.equal((await get(origin, '/api/test/block?ms=500')).status, 200, 'the work already admitted finishes')
  })()
  try {
    await waitForStatus(origin, '/api/ready', 503)
    const ready = await get(origin, '/api/ready')
    t.match(JSON.parse(ready.body), { error: { code: 'APP_ERR_OVERLOADED' } }, 'readiness says why')
    t.equal((await get(origin, '/api/health')).status, 200, 'liveness still answers: the process is fine')

    const page = await get(origin, '/items/7')
    t.equal(page.status, 503)
    t.equal(page.headers.get('retry-after'), '5')
    t.match(page.headers.get('content-type'), /^text\/html/)
    t.match(page.body, 'The server is busy; try again in a few seconds.', "the app's error page")
    t.ok(page.headers.get('content-security-policy'), 'with its security headers')
    const api = await get(origin, '/api/test/echo')
    t.equal(api.status, 503)
    t.match(
      JSON.parse(api.body),
      { error: { code: 'APP_ERR_OVERLOADED', message: 'The server is busy; try again in a few seconds.' } },
      '/api: its JSON',
    )
    const data = await get(origin, '/_data/items/7')
    t.equal(data.status, 503)
    t.match(JSON.parse(data.body), { kind: 'error', status: 503 }, 'page data: its payload')

    const scraped = await scrape(metricsOrigin)
    t.equal(total(scraped, 'app_overloaded'), 1, 'the metrics say so')
    t.ok(total(scraped, 'app_shed_requests_total', { kind: 'document' }) >= 1)
    t.ok(total(scraped, 'app_shed_requests_total', { kind: 'api' }) >= 1)
  } finally {
    blocking = false
    await runaway
  }

  await waitForStatus(origin, '/api/ready', 200)
  t.equal((await get(origin, '/items/7')).status, 200, 'caught up: served again')
})

t.test('saturated: every request is answered, admitted or shed, none hangs', async (t) => {
  const { origin } = await listenTestApp(t, 'production', {
    config: { shedding: { maxEventLoopDelayMs: 100, maxEventLoopUtilization: 0 } },
    sheddingSampleIntervalMs: 100,
    apiRoutes: [blocker],
  })
  let running = true
  const statuses: number[] = []
  const admittedMs: number[] = []
  const clients = Array.from({ length: 8 }, async () => {
    while (running) {
      const start = performance.now()
      const { status } = await get(origin, '/items/7')
      statuses.push(status)
      if (status === 200) admittedMs.push(performance.now() - start)
    }
  })
  await waitForStatus(origin, '/api/ready', 200)
  // Runaway work once the clients are being served: the loop blocked 400 ms at a time, twelve times.
  while (admittedMs.length === 0) await new Promise((resolve) => setTimeout(resolve, 10))
  for (let i = 0; i < 12; i++) await get(origin, '/api/test/block?ms=400')
  running = false
  await Promise.all(clients)
  const shed = statuses.filter((s) => s === 503).length
  const admitted = statuses.filter((s) => s === 200).length
  t.equal(shed + admitted, statuses.length, 'each answered 200 or 503: no error, no hang (each had 20 s)')
  t.ok(shed > 0, `some were shed (${shed})`)
  admittedMs.sort((a, b) => a - b)
  const p99 = admittedMs[Math.floor(admittedMs.length * 0.99)] ?? 0
  t.comment(`admitted ${admitted}, shed ${shed}; admitted p50 ${Math.round(admittedMs[admittedMs.length >> 1] ?? 0)} ms, p99 ${Math.round(p99)} ms`)
})

t.test('off by default: nothing is shed and nothing measured', async (t) => {
  const { origin, app } = await listenTestApp(t, 'production', { apiRoutes: [blocker] })
  t.equal(app.overloaded(), false)
  await get(origin, '/api/test/block?ms=300')
  t.equal(app.overloaded(), false)
  t.equal((await get(origin, '/items/7')).status, 200)
  t.equal((await get(origin, '/api/ready')).status, 200)
})
