/**
 * Sessions kept on the server (SESSION_STORE=memory) against the sealed cookie: what
 * ending, regenerating and flashing do to copies of the cookie, and the idle and
 * absolute lifetimes in both modes, on a clock the test moves (no waiting).
 * test/server/sessions-redis.test.ts does the same against a real Redis.
 */
import t from 'tap'
import fastifySecureSession from '@fastify/secure-session'
import Fastify, { type FastifyInstance } from 'fastify'
import type { AppConfig, SessionConfig } from '../../server/framework/config.js'
import { sessionKeys } from '../../server/framework/session.js'
import { countingApi } from '../helpers/session-api.js'
import { createTestApp } from '../helpers/app.js'
import { sessionCookie, sessionSetCookie } from '../helpers/cookies.js'

type Test = Parameters<typeof createTestApp>[0]

const FORM = 'application/x-www-form-urlencoded'
const SECRET = 'a-secret-a-secret-a-secret-a-secret!'
const MINUTE_S = 60
const HOUR_S = 60 * MINUTE_S

/** A fixture app with sessions kept as `store` says, on a clock the test moves with `advance`. */
async function sessionApp(t: Test, store: SessionConfig['store'], lifetimes: { idleTimeoutS: number; absoluteTimeoutS: number }) {
  let now = Date.now()
  const config: Partial<AppConfig> = { sessionSecrets: [SECRET], sessions: { store, ...lifetimes } }
  const { app, logs } = await createTestApp(t, 'fixture', { config, sessionClock: () => now, apiRoutes: [countingApi] })
  return {
    app,
    logs,
    advance: (seconds: number) => {
      now += seconds * 1000
    },
  }
}

function post(app: FastifyInstance, action: string, fields: string, cookie?: string) {
  return app.inject({
    method: 'POST',
    url: '/account',
    headers: { origin: 'http://localhost:80', 'content-type': FORM, ...(cookie ? { cookie } : {}) },
    payload: `_action=${action}${fields ? `&${fields}` : ''}`,
  })
}

function view(app: FastifyInstance, cookie?: string) {
  return app.inject({ url: '/account', headers: cookie ? { cookie } : {} })
}

/** True when the answer expires the session cookie. */
function expires(answer: Parameters<typeof sessionSetCookie>[0]): boolean {
  return /^session=;.*Max-Age=0/.test(sessionSetCookie(answer))
}

/** A browser's session cookie: whatever the last answer that set one said. */
function browser(app: FastifyInstance) {
  let cookie = ''
  const keep = <A extends Parameters<typeof sessionSetCookie>[0]>(answer: A): A => {
    if (expires(answer)) cookie = ''
    else if (sessionSetCookie(answer)) cookie = sessionCookie(answer)
    return answer
  }
  return {
    get cookie() {
      return cookie
    },
    view: async () => keep(await view(app, cookie || undefined)),
    post: async (action: string, fields = '') => keep(await post(app, action, fields, cookie || undefined)),
  }
}

const memory = { kind: 'memory' } as const
const sealed = { kind: 'cookie' } as const
const DAYS = { idleTimeoutS: 14 * 24 * HOUR_S, absoluteTimeoutS: 30 * 24 * HOUR_S }

t.test('with a store the cookie is a random id; signing out ends every copy of it', async (t) => {
  const { app, logs } = await sessionApp(t, memory, DAYS)
  t.ok(
    logs.some((line) => line.level === 40 && String(line.msg).startsWith('SESSION_STORE is memory')),
    'the operator is told memory keeps sessions in this one process',
  )
  t.notOk(
    logs.some((line) => String(line.msg).startsWith('SESSION_SECRET is unset')),
    'nothing is sealed: no secret is needed',
  )
  const noted = await post(app, 'note', 'text=hello')
  t.equal(noted.statusCode, 303)
  const line = sessionSetCookie(noted)
  t.match(line, /^session=[A-Za-z0-9_-]{43}; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/, '32 random bytes, for the absolute lifetime')
  const before = sessionCookie(noted)

  const signedIn = await post(app, 'signIn', 'name=Ann', before)
  const cookie = sessionCookie(signedIn)
  t.ok(cookie && cookie !== before, 'signing in gives the session a new id')
  const page = await view(app, cookie)
  t.match(page.body, 'Signed in as Ann')
  t.match(page.body, 'Note: hello', 'the data is kept across the new id')
  t.equal(sessionSetCookie(page), '', 'reading the session sets no cookie: the id stays the same')

  const copied = cookie
  const signedOut = await post(app, 'signOut', '', cookie)
  t.equal(signedOut.statusCode, 303)
  t.ok(expires(signedOut), 'the cookie is expired')
  const replayed = await view(app, copied)
  t.match(replayed.body, 'Signed out', 'a copy of the cookie is no session any more')
  t.match(replayed.body, 'No note')
  // Left alone, not expired: an expiry could land after another tab's sign-in and drop its new cookie.
  t.notOk(expires(replayed), 'the dead id is left to its Max-Age: it reads as no session')
})

t.test('with a store, the id from before signing in is dead once signed in (no session fixation)', async (t) => {
  const { app } = await sessionApp(t, memory, DAYS)
  const planted = sessionCookie(await post(app, 'note', 'text=planted'))
  const signedIn = sessionCookie(await post(app, 'signIn', 'name=Ann', planted))
  const old = await view(app, planted)
  t.match(old.body, 'Signed out', 'the old id does not see the signed-in session')
  t.match(old.body, 'No note', 'nor its data: the old record is gone')
  t.match((await view(app, signedIn)).body, 'Signed in as Ann')
})

t.test('with a store, a flash message is shown once, even to an older copy of the cookie', async (t) => {
  const { app } = await sessionApp(t, memory, DAYS)
  const cookie = sessionCookie(await post(app, 'signIn', 'name=Ann'))
  const first = await view(app, cookie)
  t.match(first.body, 'Welcome, Ann.')
  const again = await view(app, cookie)
  t.notMatch(again.body, 'Welcome, Ann.', 'the same cookie sent again: taken on the server, gone')
  t.match(again.body, 'Signed in as Ann')
})

t.test('in a sealed cookie, an older copy brings the flash back and outlives signing out (the lifetimes bound it)', async (t) => {
  const { app, advance } = await sessionApp(t, sealed, DAYS)
  const cookie = sessionCookie(await post(app, 'signIn', 'name=Ann'))
  const first = await view(app, cookie)
  t.match(first.body, 'Welcome, Ann.')
  t.match((await view(app, sessionCookie(first))).body, 'Signed in as Ann', 'the cookie sealed without the flash')
  t.notMatch((await view(app, sessionCookie(first))).body, 'Welcome')
  t.match((await view(app, cookie)).body, 'Welcome, Ann.', 'the older copy still holds the flash')
  const signedOut = await post(app, 'signOut', '', cookie)
  t.ok(expires(signedOut), 'signing out expires the cookie')
  t.match((await view(app, cookie)).body, 'Signed in as Ann', 'a copy kept from before still opens the session')
  advance(30 * 24 * HOUR_S)
  t.match((await view(app, cookie)).body, 'Signed out', 'until the absolute lifetime is over')
})

for (const [mode, store] of [
  ['in a store', memory],
  ['in a sealed cookie', sealed],
] as const) {
  t.test(`${mode}: a session unused for the idle timeout is over; used, it goes on`, async (t) => {
    const { app, advance } = await sessionApp(t, store, { idleTimeoutS: 10 * MINUTE_S, absoluteTimeoutS: 2 * HOUR_S })
    const visitor = browser(app)
    await visitor.post('signIn', 'name=Ann')
    for (let i = 1; i <= 3; i++) {
      advance(9 * MINUTE_S)
      t.match((await visitor.view()).body, 'Signed in as Ann', `used again after 9 minutes (${i})`)
    }
    const copy = visitor.cookie
    advance(10 * MINUTE_S + 1)
    const idle = await visitor.view()
    t.match(idle.body, 'Signed out', 'unused for 10 minutes: over')
    t.notMatch((await view(app, copy)).body, 'Signed in', 'for a copy of the cookie too')
  })

  t.test(`${mode}: a session older than the absolute timeout is over, however much it is used`, async (t) => {
    const { app, advance } = await sessionApp(t, store, { idleTimeoutS: 10 * MINUTE_S, absoluteTimeoutS: HOUR_S })
    const visitor = browser(app)
    const signedIn = await visitor.post('signIn', 'name=Ann')
    const maxAge = store.kind === 'cookie' ? 'Max-Age=600;' : 'Max-Age=3600;'
    t.match(sessionSetCookie(signedIn), maxAge, 'a sealed cookie is sealed again while used; an id lasts as long as its session may')
    for (let minutes = 5; minutes < 60; minutes += 5) {
      advance(5 * MINUTE_S)
      t.match((await visitor.view()).body, 'Signed in as Ann', `after ${minutes} minutes`)
    }
    advance(5 * MINUTE_S)
    const over = await visitor.view()
    t.match(over.body, 'Signed out', 'an hour after signing in: over')
    t.ok(store.kind === 'cookie' || !expires(over), 'a store leaves the dead id to its Max-Age (it reads as none)')
    await visitor.post('signIn', 'name=Ann')
    t.match((await visitor.view()).body, 'Signed in as Ann', 'signing in again starts a new one')
  })
}

t.test('a cookie sealed before the lifetimes were kept in it still opens its session', async (t) => {
  const { app } = await sessionApp(t, sealed, DAYS)
  // Sealed as the server sealed sessions before: the data and the library's own timestamp, nothing else.
  const sealer = Fastify()
  t.teardown(() => sealer.close())
  await sealer.register(fastifySecureSession, { key: sessionKeys([SECRET]), cookieName: 'session' })
  await sealer.ready()
  const legacy = sealer.encodeSecureSession(sealer.createSecureSession({ user: 'Ann' }))
  t.match((await view(app, `session=${encodeURIComponent(legacy)}`)).body, 'Signed in as Ann')
})

t.test('an /api route opens the session with openResponse and saves it with applyTo', async (t) => {
  const { app } = await sessionApp(t, memory, DAYS)
  const first = await app.inject({ url: '/api/test/visits' })
  t.same(first.json(), { visits: 1 })
  const cookie = sessionCookie(first)
  t.ok(cookie, 'a new session, its cookie set')
  const second = await app.inject({ url: '/api/test/visits', headers: { cookie } })
  t.same(second.json(), { visits: 2 })
  t.equal(sessionSetCookie(second), '', 'the same id: no cookie to set')
})

t.test('with a store, a HEAD request leaves the flash for the GET', async (t) => {
  const { app } = await sessionApp(t, memory, DAYS)
  const cookie = sessionCookie(await post(app, 'signIn', 'name=Ann'))
  const head = await app.inject({ method: 'HEAD', url: '/account', headers: { cookie } })
  t.equal(head.statusCode, 200)
  t.match((await view(app, cookie)).body, 'Welcome, Ann.')
})
