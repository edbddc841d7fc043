// test-needs: redis
/**
 * Sessions kept in a real Redis (SESSION_STORE=redis): ended on the server for every
 * copy of the cookie, shared by instances, and failing closed while Redis is down (503
 * at once for what needs a session; everything else answers as ever), until it is back.
 */
import { createHash } from 'node:crypto'
import t from 'tap'
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import { Redis } from 'ioredis'
import type { AppConfig } from '../../server/framework/config.js'
import { sessionOf } from '../../server/framework/response-control.js'
import { REDIS_BACK_INFO, REDIS_DOWN_WARNING } from '../../server/framework/session-stores.js'
import { countingApi } from '../helpers/session-api.js'
import { createTestApp, type LogLine } from '../helpers/app.js'
import { sessionCookie, sessionSetCookie } from '../helpers/cookies.js'
import { startRedis, type TestRedis } from '../helpers/redis.js'
import { freePort } from '../helpers/ports.js'
import { waitUntil } from '../helpers/wait.js'

type Test = Parameters<typeof createTestApp>[0]

const FORM = 'application/x-www-form-urlencoded'
/** No answer may take longer than this, Redis or not. */
const ANSWER_WITHIN_MS = 3_000
const UNAVAILABLE = 'Sessions are unavailable for a moment; try again shortly.'

async function redisApp(t: Test, redis: TestRedis) {
  const config: Partial<AppConfig> = {
    sessions: { store: { kind: 'redis', url: redis.url }, idleTimeoutS: 14 * 24 * 3600, absoluteTimeoutS: 30 * 24 * 3600 },
  }
  return createTestApp(t, 'fixture', { config, apiRoutes: [countingApi] })
}

/** A client of the test's Redis, to see what the app keeps there. */
function redisClient(t: Test, redis: TestRedis): Redis {
  const client = new Redis(redis.url, { lazyConnect: true })
  t.teardown(() => client.disconnect())
  return client
}

function post(app: FastifyInstance, action: string, fields: string, cookie?: string, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url: '/account',
    headers: { origin: 'http://localhost:80', 'content-type': FORM, ...(cookie ? { cookie } : {}), ...headers },
    payload: `_action=${action}${fields ? `&${fields}` : ''}`,
  })
}

function view(app: FastifyInstance, cookie?: string) {
  return app.inject({ url: '/account', headers: cookie ? { cookie } : {} })
}

/** `request`, with how long it took. */
async function timed<T>(request: () => Promise<T>): Promise<{ answer: T; ms: number }> {
  const started = performance.now()
  const answer = await request()
  return { answer, ms: performance.now() - started }
}

const warnings = (logs: readonly LogLine[]) => logs.filter((line) => line.level === 40 && line.msg === REDIS_DOWN_WARNING)

t.test('signing out deletes the session in Redis: a copied cookie is dead at once', async (t) => {
  const redis = await startRedis(t)
  const { app, logs } = await redisApp(t, redis)
  t.notOk(
    logs.some((line) => String(line.msg).startsWith('SESSION_SECRET is unset')),
    'nothing is sealed: no secret is needed',
  )
  const client = redisClient(t, redis)
  const signedIn = await post(app, 'signIn', 'name=Ann')
  t.equal(signedIn.statusCode, 303)
  const cookie = sessionCookie(signedIn)
  const id = cookie.slice('session='.length)
  t.match(id, /^[A-Za-z0-9_-]{43}$/)

  const keys = await client.keys('*')
  const key = `app-session:${createHash('sha256').update(id).digest('base64url')}`
  t.same(keys, [key], 'one record, under the hash of the id: a dump of Redis holds no cookie')
  const record = JSON.parse((await client.get(key))!) as { createdAt: number; savedAt: number; data: Record<string, unknown> }
  t.match(record, { createdAt: Number, savedAt: Number, data: { user: 'Ann', __flash: 'Welcome, Ann.' } })
  const ttl = await client.pttl(key)
  t.ok(ttl > 14 * 24 * 3600_000 - 60_000 && ttl <= 14 * 24 * 3600_000, 'it expires after the idle timeout')

  const page = await view(app, cookie)
  t.match(page.body, 'Signed in as Ann')
  t.match(page.body, 'Welcome, Ann.')
  t.notMatch((await view(app, cookie)).body, 'Welcome', 'the flash was taken in Redis')

  const copied = cookie
  const signedOut = await post(app, 'signOut', '', cookie)
  t.match(sessionSetCookie(signedOut), /^session=;.*Max-Age=0/, 'the cookie is expired')
  t.same(await client.keys('*'), [], 'and the record deleted')
  t.match((await view(app, copied)).body, 'Signed out', 'a copy of the cookie opens nothing')
})

t.test('two instances on one Redis share sessions: signed in on one, signed out on the other', async (t) => {
  const redis = await startRedis(t)
  const { app: a } = await redisApp(t, redis)
  const { app: b } = await redisApp(t, redis)
  const planted = sessionCookie(await post(a, 'note', 'text=hello'))
  const cookie = sessionCookie(await post(b, 'signIn', 'name=Ann', planted))
  t.not(cookie, planted, 'a new id on signing in')
  const onA = await view(a, cookie)
  t.match(onA.body, 'Signed in as Ann')
  t.match(onA.body, 'Note: hello')
  t.match((await view(a, planted)).body, 'Signed out', 'the id from before is dead on every instance')
  await post(a, 'signOut', '', cookie)
  t.match((await view(b, cookie)).body, 'Signed out', 'signed out on one instance, out on all')
})

t.test('Redis down: what needs a session answers 503 at once, the rest as ever; Redis back, sessions work again', async (t) => {
  const redis = await startRedis(t)
  const { app, logs } = await redisApp(t, redis)
  const cookie = sessionCookie(await post(app, 'signIn', 'name=Ann'))
  t.match((await view(app, cookie)).body, 'Signed in as Ann')
  await redis.stop()

  const page = await timed(() => view(app, cookie))
  t.ok(page.ms < ANSWER_WITHIN_MS, `answered in ${Math.round(page.ms)} ms`)
  t.equal(page.answer.statusCode, 503)
  t.equal(page.answer.headers['retry-after'], '5')
  t.equal(page.answer.headers['cache-control'], 'private, no-store')
  t.match(page.answer.headers['content-type'], /^text\/html/)
  t.match(page.answer.body, UNAVAILABLE)
  t.notMatch(page.answer.body, 'Signed', 'neither signed in nor signed out is shown')
  t.notMatch(page.answer.body, /Digest: /, 'a refusal, not a fault')

  const data = await app.inject({ url: '/_data/account', headers: { cookie, accept: 'application/json' } })
  t.equal(data.statusCode, 503)
  t.equal(data.headers['retry-after'], '5')
  t.match(data.json(), { kind: 'error', status: 503, message: UNAVAILABLE })

  const action = await post(app, 'signOut', '', cookie, { accept: 'application/json' })
  t.equal(action.statusCode, 503, 'signing out is refused, not pretended')
  t.equal(action.headers['retry-after'], '5')
  t.match(action.json(), { error: { code: 'APP_ERR_SESSIONS_UNAVAILABLE', message: UNAVAILABLE } })
  const browserAction = await post(app, 'signOut', '', cookie)
  t.equal(browserAction.statusCode, 503, 'a browser form too')
  t.match(browserAction.body, UNAVAILABLE, "the message, in the app's error page")
  t.notOk(sessionSetCookie(browserAction), 'the cookie is kept: the session was not ended')

  const signIn = await post(app, 'signIn', 'name=Bob')
  t.equal(signIn.statusCode, 503, 'a session cannot be started either')
  t.notOk(sessionSetCookie(signIn), 'and no cookie names one that was not saved')

  const api = await app.inject({ url: '/api/test/visits', headers: { cookie } })
  t.equal(api.statusCode, 503)
  t.equal(api.headers['retry-after'], '5')
  t.match(api.json(), { error: { code: 'APP_ERR_SESSIONS_UNAVAILABLE', message: UNAVAILABLE } })

  for (const [url, what, headers] of [
    ['/static-page', 'a static page', {}],
    ['/target', 'a dynamic page, for a visitor without a session', {}],
    ['/target', 'a dynamic page that does not use the session, for a signed-in visitor', { cookie }],
    ['/api/health', 'the health check', { cookie }],
  ] as const) {
    const answer = await timed(() => app.inject({ url, headers }))
    t.equal(answer.answer.statusCode, 200, `${what} answers as ever`)
    t.ok(answer.ms < ANSWER_WITHIN_MS, `in ${Math.round(answer.ms)} ms`)
  }
  const anonymous = await view(app)
  t.equal(anonymous.statusCode, 200, 'a page that reads the session, for a visitor without one: nothing to read')
  t.match(anonymous.body, 'Signed out')

  t.equal(warnings(logs).length, 1, 'one warning, not one per request')
  t.notOk(
    logs.some((line) => line.level >= 50),
    'no error lines: the warning says it',
  )

  await startRedis(t, redis.port)
  await waitUntil(() => logs.some((line) => line.msg === REDIS_BACK_INFO), 'the app says Redis answers again')
  t.match((await view(app, cookie)).body, 'Signed out', 'the session was in the Redis that is gone: it ended with it')
  const again = sessionCookie(await post(app, 'signIn', 'name=Ann'))
  t.match((await view(app, again)).body, 'Signed in as Ann', 'sessions work again')
})

t.test('Redis down, the demo: each dynamic page reads the session, so a visitor with one gets the 503 there', async (t) => {
  const redis = await startRedis(t)
  const config: Partial<AppConfig> = {
    sessions: { store: { kind: 'redis', url: redis.url }, idleTimeoutS: 14 * 24 * 3600, absoluteTimeoutS: 30 * 24 * 3600 },
  }
  const { app } = await createTestApp(t, 'production', { config })
  const form = (url: string, payload: string, cookie?: string) =>
    app.inject({
      method: 'POST',
      url,
      headers: { origin: 'http://localhost:80', 'content-type': FORM, ...(cookie ? { cookie } : {}) },
      payload,
    })
  const starred = await form('/items/7', '_action=star&id=3&starred=yes')
  t.equal(starred.statusCode, 303, 'a star is kept in the session')
  const cookie = sessionCookie(starred)
  await redis.stop()
  for (const url of ['/items/7', '/items/7/stats', '/contact', '/login', '/account']) {
    t.equal((await app.inject({ url, headers: { cookie } })).statusCode, 503, `${url}, with a session`)
  }
  t.equal((await app.inject({ url: '/items/7' })).statusCode, 200, '/items/7, without one')
  for (const url of ['/', '/about']) t.equal((await app.inject({ url, headers: { cookie } })).statusCode, 200, `${url}: static`)
  t.equal((await form('/about', '_action=theme&theme=dark', cookie)).statusCode, 303, 'the theme choice: a cookie of its own')
})

t.test('a Redis that hangs: a session read gives up within a second, with 503', async (t) => {
  const redis = await startRedis(t)
  const { app, logs } = await redisApp(t, redis)
  const cookie = sessionCookie(await post(app, 'signIn', 'name=Ann'))
  redis.freeze()
  const page = await timed(() => view(app, cookie))
  t.equal(page.answer.statusCode, 503)
  t.ok(page.ms < 1_500, `answered in ${Math.round(page.ms)} ms`)
  t.equal(warnings(logs).length, 1)
  t.equal((await app.inject({ url: '/static-page' })).statusCode, 200, 'a static page answers as ever')
})

t.test('an instance starts while Redis is down, and uses it once it answers', async (t) => {
  const port = await freePort()
  const down = { url: `redis://127.0.0.1:${port}`, port } as TestRedis
  const started = await timed(() => redisApp(t, down))
  const { app, logs } = started.answer
  t.ok(started.ms < ANSWER_WITHIN_MS, `started in ${Math.round(started.ms)} ms`)
  t.equal(warnings(logs).length, 1, 'with one warning')
  t.equal((await post(app, 'signIn', 'name=Ann')).statusCode, 503, 'no session can be started')
  await startRedis(t, port)
  await waitUntil(() => logs.some((line) => line.msg === REDIS_BACK_INFO), 'the app says Redis answers')
  const cookie = sessionCookie(await post(app, 'signIn', 'name=Ann'))
  t.match((await view(app, cookie)).body, 'Signed in as Ann')
})

t.test('a session that cannot be saved as the answer goes out: the answer is the 503, once', async (t) => {
  const redis = await startRedis(t)
  // An /api route that leaves the saving to the onSend hook, and Redis going away while it runs.
  const stopsRedis: FastifyPluginAsync = async (fastify) => {
    fastify.post('/test/remember', async (request) => {
      const session = await sessionOf(request)
      await redis.stop()
      session.set('remembered', true)
      return { remembered: true }
    })
  }
  const config: Partial<AppConfig> = {
    sessions: { store: { kind: 'redis', url: redis.url }, idleTimeoutS: 3600, absoluteTimeoutS: 7200 },
  }
  const { app, logs } = await createTestApp(t, 'fixture', { config, apiRoutes: [stopsRedis] })
  const cookie = sessionCookie(await post(app, 'signIn', 'name=Ann'))
  const answer = await app.inject({ method: 'POST', url: '/api/test/remember', headers: { cookie } })
  t.equal(answer.statusCode, 503)
  t.equal(answer.headers['retry-after'], '5')
  t.match(answer.json(), { error: { code: 'APP_ERR_SESSIONS_UNAVAILABLE', message: UNAVAILABLE } })
  t.notOk(sessionSetCookie(answer), 'no cookie')
  t.notOk(
    logs.some((line) => line.level >= 50),
    'no error line',
  )
})

t.test('a page view without a session cookie sends Redis nothing', async (t) => {
  const redis = await startRedis(t)
  const { app } = await redisApp(t, redis)
  const client = redisClient(t, redis)
  const commands = async () => {
    const info = await client.info('stats')
    return Number(/total_commands_processed:(\d+)/.exec(info)![1])
  }
  const before = await commands()
  for (const url of ['/account', '/target', '/static-page', '/api/health', '/_data/account']) {
    t.equal((await app.inject({ url })).statusCode, 200, url)
  }
  // The INFO that asked before is counted; the one asking now is not yet.
  t.equal(await commands(), before + 1, 'only our own INFO reached Redis')
})
