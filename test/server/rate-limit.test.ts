// test-needs: redis
import t from 'tap'
import type { FastifyBaseLogger } from 'fastify'
import type { AppConfig, RateLimitConfig } from '../../server/framework/config.js'
import { throttledWarning } from '../../server/framework/redis-connection.js'
import { listenTestApp, type LogLine, type TestAppOptions } from '../helpers/app.js'
import { freePort } from '../helpers/ports.js'
import { startRedis } from '../helpers/redis.js'
import { waitUntil } from '../helpers/wait.js'
import { securityHeaderNames } from '../helpers/security-headers.js'

const FORM = 'application/x-www-form-urlencoded'
const REDIS_WARNING = 'Redis is unreachable: rate limits are not enforced (requests pass) until it answers again'
/** No answer may take longer than this, Redis or not. */
const ANSWER_WITHIN_MS = 3_000

type Test = Parameters<typeof listenTestApp>[0]

function limits(overrides: Partial<RateLimitConfig>): { rateLimit: RateLimitConfig } {
  return { rateLimit: { forms: 0, monitoring: 0, windowMs: 60_000, redisUrl: undefined, ...overrides } }
}

async function fixtureApp(t: Test, config: Partial<AppConfig>, options: TestAppOptions = {}) {
  return listenTestApp(t, 'fixture', { ...options, config })
}

/** A guestbook signature posted to a real listening app, with `headers` added. */
async function sign(origin: string, headers: Record<string, string> = {}) {
  return fetch(`${origin}/guestbook`, {
    method: 'POST',
    body: '_action=sign&name=Ann',
    redirect: 'manual',
    headers: { 'content-type': FORM, origin, ...headers },
    signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
  })
}

function warnings(logs: readonly LogLine[]): LogLine[] {
  return logs.filter((line) => line.level === 40 && line.msg === REDIS_WARNING)
}

t.test('in memory: the form budget per address, then 429 in the surface form', async (t) => {
  const { app, origin } = await fixtureApp(t, limits({ forms: 3 }))
  const securityHeaders = await securityHeaderNames(app, '/guestbook')
  for (let i = 1; i <= 3; i++) {
    const res = await sign(origin)
    t.equal(res.status, 303, `post ${i} of 3 runs the action`)
    t.equal(res.headers.get('ratelimit-limit'), '3')
    t.equal(res.headers.get('ratelimit-remaining'), String(3 - i))
  }

  t.test('a script gets JSON', async (t) => {
    const res = await sign(origin, { accept: 'application/json' })
    t.equal(res.status, 429)
    const retryAfter = Number(res.headers.get('retry-after'))
    t.ok(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 60, `Retry-After in seconds within the window: ${retryAfter}`)
    t.equal(res.headers.get('ratelimit-limit'), '3')
    t.equal(res.headers.get('ratelimit-remaining'), '0')
    t.ok(res.headers.get('ratelimit-reset'), 'RateLimit-Reset')
    t.equal(res.headers.get('cache-control'), 'private, no-store')
    t.match(res.headers.get('content-type'), /^application\/json/)
    for (const name of securityHeaders) t.ok(res.headers.has(name), `has ${name}`)
    const body = (await res.json()) as { error: { code: string; message: string; requestId: string } }
    t.equal(body.error.code, 'APP_ERR_RATE_LIMITED')
    t.match(body.error.message, /^Too many requests from this address: try again in (\d+ seconds?|1 minute)\.$/)
    t.equal(body.error.requestId, res.headers.get('x-request-id'))
  })

  t.test('a browser gets the error page', async (t) => {
    const res = await sign(origin)
    t.equal(res.status, 429)
    t.ok(Number(res.headers.get('retry-after')) > 0, 'Retry-After')
    t.equal(res.headers.get('cache-control'), 'private, no-store')
    t.match(res.headers.get('content-type'), /^text\/html/)
    for (const name of securityHeaders) t.ok(res.headers.has(name), `has ${name}`)
    const html = await res.text()
    t.match(html, /Too many requests from this address: try again in (\d+ seconds?|1 minute)\./)
    t.notMatch(html, 'Rate limit exceeded', "never the library's words")
  })

  t.test('pages and assets are never counted', async (t) => {
    for (let i = 0; i < 10; i++) {
      const page = await fetch(`${origin}/guestbook`, { signal: AbortSignal.timeout(ANSWER_WITHIN_MS) })
      t.equal(page.status, 200)
      t.equal(page.headers.get('ratelimit-limit'), null, 'no budget on a page')
      await page.arrayBuffer()
    }
    const html = await (await fetch(`${origin}/guestbook`)).text()
    const asset = /\/assets\/[^"]+\.js/.exec(html)?.[0]
    t.ok(asset, 'the page names a script asset')
    const res = await fetch(`${origin}${asset}`)
    t.equal(res.status, 200)
    t.equal(res.headers.get('ratelimit-limit'), null, 'no budget on an asset')
  })
})

t.test('the monitoring tunnel has a budget of its own, and answers over it in its own form', async (t) => {
  const { app, origin } = await fixtureApp(t, limits({ forms: 1, monitoring: 2 }))
  const securityHeaders = await securityHeaderNames(app, '/guestbook')
  const envelope = () =>
    fetch(`${origin}/monitoring?o=1&p=2`, { method: 'POST', body: 'not an envelope', signal: AbortSignal.timeout(ANSWER_WITHIN_MS) })
  // No DSN is configured, so the tunnel itself refuses every envelope: 403.
  for (let i = 0; i < 2; i++) t.equal((await envelope()).status, 403, 'within budget: the tunnel itself answers')
  const res = await envelope()
  t.equal(res.status, 429)
  t.ok(Number(res.headers.get('retry-after')) > 0, 'Retry-After, which the browser SDK honours')
  t.equal(res.headers.get('ratelimit-limit'), '2')
  t.equal(res.headers.get('cache-control'), 'private, no-store')
  for (const name of securityHeaders) t.ok(res.headers.has(name), `has ${name}`)
  t.match(res.headers.get('content-type'), /^text\/plain/, "the tunnel's refusals are plain text")
  t.match(await res.text(), /^Too many requests from this address: try again in (\d+ seconds?|1 minute)\.$/)
  t.equal((await sign(origin)).status, 303, 'the form budget is apart from the tunnel one')
})

t.test('a budget of 0 is no limit', async (t) => {
  const { origin } = await fixtureApp(t, limits({ forms: 0 }))
  for (let i = 0; i < 40; i++) t.equal((await sign(origin)).status, 303)
})

t.test('per client address, as a trusted proxy reports it', async (t) => {
  t.test('X-Forwarded-For from a trusted peer names the client', async (t) => {
    const { origin } = await fixtureApp(t, { ...limits({ forms: 2 }), trustProxy: ['127.0.0.1'] })
    const from = (address: string) => sign(origin, { 'x-forwarded-for': address })
    t.equal((await from('203.0.113.1')).status, 303)
    t.equal((await from('203.0.113.1')).status, 303)
    t.equal((await from('203.0.113.1')).status, 429, 'the first client is over budget')
    t.equal((await from('203.0.113.2')).status, 303, 'another client has its own budget')
    t.equal((await from('203.0.113.2')).status, 303)
    t.equal((await from('203.0.113.2')).status, 429)
  })

  t.test('a port the proxy writes after the address buys no new budget', async (t) => {
    const { origin } = await fixtureApp(t, { ...limits({ forms: 2 }), trustProxy: ['127.0.0.1'] })
    const from = (address: string) => sign(origin, { 'x-forwarded-for': address })
    t.equal((await from('203.0.113.5:1001')).status, 303)
    t.equal((await from('203.0.113.5:1002')).status, 303)
    t.equal((await from('203.0.113.5:1003')).status, 429, 'one client, whatever its port')
    t.equal((await from('[2001:db8::1]:443')).status, 303)
    t.equal((await from('2001:db8::2')).status, 303)
    t.equal((await from('[2001:db8::3]:444')).status, 429, 'one /64, with or without a port')
  })

  t.test('X-Forwarded-For from an untrusted peer is ignored: the peer is the client', async (t) => {
    const { origin } = await fixtureApp(t, { ...limits({ forms: 2 }), trustProxy: ['10.0.0.1'] })
    t.equal((await sign(origin, { 'x-forwarded-for': '203.0.113.1' })).status, 303)
    t.equal((await sign(origin, { 'x-forwarded-for': '203.0.113.2' })).status, 303)
    t.equal((await sign(origin, { 'x-forwarded-for': '203.0.113.3' })).status, 429, 'a made-up address buys no new budget')
  })
})

t.test('with Redis, every instance shares one budget', async (t) => {
  const redis = await startRedis(t)
  const config = limits({ forms: 4, redisUrl: redis.url })
  const [a, b] = [await fixtureApp(t, config), await fixtureApp(t, config)]
  for (const [i, instance] of [a, b, a, b].entries()) {
    t.equal((await sign(instance.origin)).status, 303, `post ${i + 1} of 4, on instance ${instance === a ? 'A' : 'B'}`)
  }
  t.equal((await sign(a.origin)).status, 429, 'the fifth is refused on A')
  t.equal((await sign(b.origin)).status, 429, 'and on B')
  t.same(warnings([...a.logs, ...b.logs]), [], 'no warning while Redis answers')
})

t.test('Redis gone: requests pass, answered at once, with one warning per interval', async (t) => {
  const redis = await startRedis(t)
  const { origin, logs } = await fixtureApp(t, limits({ forms: 2, redisUrl: redis.url }), { rateLimitWarnIntervalMs: 60_000 })
  t.equal((await sign(origin)).status, 303)
  t.equal((await sign(origin)).status, 303)
  t.equal((await sign(origin)).status, 429, 'the budget is kept in Redis')
  await redis.stop()
  for (let i = 0; i < 6; i++) {
    const started = Date.now()
    const res = await sign(origin)
    t.equal(res.status, 303, 'fails open: the post runs')
    t.ok(Date.now() - started < ANSWER_WITHIN_MS, `answered in ${Date.now() - started} ms`)
  }
  const page = await fetch(`${origin}/guestbook`, { signal: AbortSignal.timeout(ANSWER_WITHIN_MS) })
  t.equal(page.status, 200, 'pages are unaffected')
  t.equal(warnings(logs).length, 1, 'one warning line for the interval, not one per request')
  t.equal(logs.filter((line) => line.level >= 50).length, 0, 'no error lines')
})

t.test('Redis back: the budget is counted again, and the log says so', async (t) => {
  const redis = await startRedis(t)
  const { origin, logs } = await fixtureApp(t, limits({ forms: 1, redisUrl: redis.url }))
  t.equal((await sign(origin)).status, 303)
  t.equal((await sign(origin)).status, 429)
  await redis.stop()
  t.equal((await sign(origin)).status, 303, 'fails open while Redis is gone')
  await startRedis(t, redis.port)
  await waitUntil(() => logs.some((line) => line.msg === 'Redis answers again: rate limits are enforced'), 'the app reconnects')
  t.equal((await sign(origin)).status, 303, 'a new Redis: a fresh budget')
  t.equal((await sign(origin)).status, 429, 'counted again')
})

t.test('Redis hung: requests pass after the command timeout, never hang', async (t) => {
  const redis = await startRedis(t)
  const { origin, logs } = await fixtureApp(t, limits({ forms: 1, redisUrl: redis.url }))
  t.equal((await sign(origin)).status, 303)
  redis.freeze()
  for (let i = 0; i < 3; i++) {
    const started = Date.now()
    t.equal((await sign(origin)).status, 303, 'fails open')
    t.ok(Date.now() - started < ANSWER_WITHIN_MS, `answered in ${Date.now() - started} ms`)
  }
  t.equal(warnings(logs).length, 1)
})

t.test('Redis unreachable from the start: the app starts at once and requests pass', async (t) => {
  const nothing = `redis://127.0.0.1:${await freePort()}`
  const started = Date.now()
  const { origin, logs } = await fixtureApp(t, limits({ forms: 1, redisUrl: nothing }))
  t.ok(Date.now() - started < ANSWER_WITHIN_MS, `ready in ${Date.now() - started} ms`)
  for (let i = 0; i < 3; i++) t.equal((await sign(origin)).status, 303)
  t.equal(warnings(logs).length, 1)
})

t.test('the warning throttle: the first failure at once, then one line per interval', async (t) => {
  const lines: Array<{ failuresSinceLastWarning: number }> = []
  const log = { warn: (fields: { failuresSinceLastWarning: number }) => lines.push(fields) } as unknown as FastifyBaseLogger
  let now = 1_000
  const warn = throttledWarning(log, 'down', 500, () => now)
  warn(new Error('a'))
  t.equal(lines.length, 1, 'the first failure is said at once')
  for (const at of [1_001, 1_200, 1_499]) {
    now = at
    warn(new Error('b'))
  }
  t.equal(lines.length, 1, 'nothing more within the interval')
  now = 1_500
  warn(new Error('c'))
  t.equal(lines.length, 2, 'the next interval has its line')
  t.equal(lines[1]!.failuresSinceLastWarning, 3, 'saying how many went unsaid')
})
