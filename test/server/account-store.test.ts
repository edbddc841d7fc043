// test-needs: redis
/**
 * The demo's sign-in on each session store: sign-out revokes a copied cookie where the
 * store can (memory, Redis), two instances on one Redis share a sign-in, and Redis
 * stopped and started again costs the signed-in visitor only the pages that need the
 * session, for as long as it is down.
 */
import t from 'tap'
import type { AppConfig } from '../../server/framework/config.js'
import { createTestApp } from '../helpers/app.js'
import { sessionCookie } from '../helpers/cookies.js'
import { startRedis } from '../helpers/redis.js'
import { freePort } from '../helpers/ports.js'
import { waitUntil } from '../helpers/wait.js'
import { REDIS_BACK_INFO } from '../../server/framework/session-stores.js'

type Test = Parameters<typeof createTestApp>[0]
type App = Awaited<ReturnType<typeof createTestApp>>['app']

const FORM = { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost:80' }
const LIFETIMES = { idleTimeoutS: 14 * 24 * 3600, absoluteTimeoutS: 30 * 24 * 3600 }
const SIGNED_IN = /You are signed in as <strong>demo@example\.com<\/strong>/

function storeApp(t: Test, store: NonNullable<AppConfig['sessions']>['store']) {
  return createTestApp(t, 'production', { config: { sessions: { store, ...LIFETIMES } } })
}

async function signIn(app: App, cookie?: string): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/login',
    payload: '_action=signIn&email=demo%40example.com&password=demo-password&next=%2Faccount',
    headers: { ...FORM, ...(cookie ? { cookie } : {}) },
  })
  t.equal(res.statusCode, 303, 'signed in')
  return sessionCookie(res)
}

const signOut = (app: App, cookie: string) =>
  app.inject({ method: 'POST', url: '/account', payload: '_action=signOut', headers: { ...FORM, cookie } })
const account = (app: App, cookie: string) => app.inject({ url: '/account', headers: { cookie } })

t.test('memory: sign-out kills every copy of the cookie, and sign-in gives a new identity', async (t) => {
  const { app } = await storeApp(t, { kind: 'memory' })
  // A session planted in the visitor's browser before sign-in (fixation: here one the
  // contact form's flash opened) is not the signed-in one.
  const sent = await app.inject({
    method: 'POST',
    url: '/contact',
    payload: '_action=send&name=Eve&email=eve%40example.com&message=hi',
    headers: FORM,
  })
  const planted = sessionCookie(sent)
  t.match(planted, /^session=./, 'a session to plant')
  const cookie = await signIn(app, planted)
  t.not(cookie, planted, 'sign-in gives a new session id')
  t.equal((await account(app, planted)).statusCode, 303, 'the planted one is not signed in')
  const copy = cookie
  t.match((await account(app, cookie)).body, SIGNED_IN)
  t.equal((await signOut(app, cookie)).statusCode, 303)
  const replayed = await account(app, copy)
  t.equal(replayed.statusCode, 303, 'the copy made before sign-out is dead')
  t.equal(replayed.headers.location, '/login?next=%2Faccount')
})

t.test('cookie (the default): a copy made before sign-out still opens the account until it expires', async (t) => {
  // What this mode cannot do, shown so that it is known: the sealed cookie holds the session itself.
  const { app } = await createTestApp(t)
  const cookie = await signIn(app)
  await signOut(app, cookie)
  t.match((await account(app, cookie)).body, SIGNED_IN, 'no server-side state to revoke: choose a store for that')
})

t.test('redis: two instances share a sign-in, sign-out on one kills the copy on the other; Redis down and back', async (t) => {
  const redis = await startRedis(t)
  const one = await storeApp(t, { kind: 'redis', url: redis.url })
  const two = await storeApp(t, { kind: 'redis', url: redis.url })
  const cookie = await signIn(one.app)
  t.match((await account(two.app, cookie)).body, SIGNED_IN, 'the other instance reads the same session')
  t.equal((await signOut(two.app, cookie)).statusCode, 303)
  t.equal((await account(one.app, cookie)).headers.location, '/login?next=%2Faccount', 'and the first sees it ended')

  const again = await signIn(one.app)
  await redis.stop()
  const down = await account(one.app, again)
  t.equal(down.statusCode, 503, 'the guarded page cannot tell who this is: 503, not signed out')
  t.equal(down.headers['retry-after'], '5')
  t.notMatch(down.body, /demo@example\.com/)
  t.equal((await one.app.inject({ url: '/about', headers: { cookie: again } })).statusCode, 200, 'a page that needs no session is served')
  // The item pages' layout marks the visitor's starred lists: it needs the session, and says so.
  t.equal((await one.app.inject({ url: '/items/7', headers: { cookie: again } })).statusCode, 503)

  await startRedis(t, redis.port)
  await waitUntil(() => one.logs.some((line) => line.msg === REDIS_BACK_INFO), 'the instance says Redis answers again')
  // Redis kept nothing on disk: the session is gone, so the guard sends the visitor to sign in (no 5xx).
  const back = await account(one.app, again)
  t.equal(back.statusCode, 303)
  t.equal(back.headers.location, '/login?next=%2Faccount')
  t.match((await account(one.app, await signIn(one.app))).body, SIGNED_IN, 'and signing in works again')
})

t.test('redis unreachable: a sign-in that cannot be kept answers 503 and sets no cookie at all', async (t) => {
  const { app } = await storeApp(t, { kind: 'redis', url: `redis://127.0.0.1:${await freePort()}` })
  const res = await app.inject({
    method: 'POST',
    url: '/login',
    payload: '_action=signIn&email=demo%40example.com&password=demo-password&next=%2Faccount',
    headers: FORM,
  })
  t.equal(res.statusCode, 503)
  t.same(res.headers['set-cookie'], undefined, 'not the session, not the header hint: nothing pretends a sign-in')
})
