// test-needs: redis
/**
 * Whose data a tab shows: each sign-in gives the session a new identity, the browser's
 * identity cookie follows it, a dynamic page and its forms carry the one they were
 * rendered for, and a form posted after a sign-in or out (in any tab) is refused with
 * nothing done. Tried with and without JavaScript, with forged and missing identities,
 * a replayed cookie, and on each session store.
 */
import t from 'tap'
import type { AppConfig } from '../../server/framework/config.js'
import { parseAccounts } from '../../server/config.js'
import { IDENTITY_CHANGED_CODE, IDENTITY_COOKIE, IDENTITY_FIELD } from '../../shared/framework/identity.js'
import { createTestApp } from '../helpers/app.js'
import { sessionCookie, setCookies } from '../helpers/cookies.js'
import { bootstrapOf } from '../helpers/page-html.js'
import { startRedis } from '../helpers/redis.js'

type Test = Parameters<typeof createTestApp>[0]
type App = Awaited<ReturnType<typeof createTestApp>>['app']

const FORM = { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost:80' }
const PASSWORD = 'hunter2-but-longer'
const A = 'ada@example.com'
const B = 'bob@example.com'
const LIFETIMES = { idleTimeoutS: 14 * 24 * 3600, absoluteTimeoutS: 30 * 24 * 3600 }

function twoAccountApp(t: Test, store: NonNullable<AppConfig['sessions']>['store'] = { kind: 'cookie' }) {
  return createTestApp(t, 'production', {
    config: { sessions: { store, ...LIFETIMES }, product: { DEMO_ACCOUNT: parseAccounts(`${A}:${PASSWORD},${B}:${PASSWORD}`, 'DEMO_ACCOUNT') } },
  })
}

/** The browser's cookies after an answer: the session's and the identity's, as the next request sends them. */
function cookiesAfter(answer: { headers: Record<string, unknown> }, before = ''): string {
  const jar = new Map(before ? before.split('; ').map((pair) => [pair.split('=')[0]!, pair] as const) : [])
  for (const line of setCookies(answer)) {
    const pair = line.split(';')[0]!
    const [name, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]
    if (value === '' || /max-age=0/i.test(line)) jar.delete(name)
    else jar.set(name, pair)
  }
  return [...jar.values()].join('; ')
}

const identityIn = (cookies: string) =>
  cookies
    .split('; ')
    .find((pair) => pair.startsWith(`${IDENTITY_COOKIE}=`))
    ?.slice(IDENTITY_COOKIE.length + 1)

async function signIn(app: App, email: string, cookies = ''): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/login',
    payload: new URLSearchParams({ _action: 'signIn', email, password: PASSWORD, next: '/account' }).toString(),
    headers: { ...FORM, ...(cookies ? { cookie: cookies } : {}) },
  })
  if (res.statusCode !== 303) throw new Error(`sign-in answered ${res.statusCode}`)
  return cookiesAfter(res, cookies)
}

async function signOut(app: App, cookies: string, identity?: string) {
  const fields: Record<string, string> = { _action: 'signOut', ...(identity !== undefined ? { [IDENTITY_FIELD]: identity } : {}) }
  return app.inject({ method: 'POST', url: '/account', payload: new URLSearchParams(fields).toString(), headers: { ...FORM, cookie: cookies } })
}

/** The items layout's star on /items/3, as a form from a page rendered with `identity`. */
function starItem3(app: App, cookies: string, identity: string) {
  return app.inject({
    method: 'POST',
    url: '/items/3',
    payload: new URLSearchParams({ _action: 'star', id: '3', starred: 'yes', [IDENTITY_FIELD]: identity }).toString(),
    headers: { ...FORM, cookie: cookies },
  })
}

/** The identity the account page's sign-out form was rendered with, and its payload's. */
async function formIdentity(app: App, cookies: string): Promise<{ field: string | undefined; payload: unknown; email: string | undefined }> {
  const res = await app.inject({ url: '/account', headers: { cookie: cookies } })
  if (res.statusCode === 303) return { field: undefined, payload: undefined, email: undefined } // signed out: to /login
  const field = new RegExp(`<input type="hidden" name="${IDENTITY_FIELD}" value="([^"]*)"/>`).exec(res.body)?.[1]
  const email = /account-email">([^<]*)</.exec(res.body)?.[1]
  return { field, payload: bootstrapOf(res.body).identity, email }
}

for (const store of [{ kind: 'cookie' }, { kind: 'memory' }] as const) {
  t.test(`${store.kind}: each sign-in is a new identity, in the cookie, the payload and the forms`, async (t) => {
    const { app } = await twoAccountApp(t, store)
    const asA = await signIn(app, A)
    const identityA = identityIn(asA)
    t.match(identityA, /^[A-Za-z0-9_-]{22}$/, 'a random identity, in a cookie of its own')
    const cookieLine = (
      await app.inject({
        method: 'POST',
        url: '/login',
        payload: new URLSearchParams({ _action: 'signIn', email: A, password: PASSWORD, next: '/account' }).toString(),
        headers: FORM,
      })
    ).headers['set-cookie'] as string[]
    const line = cookieLine.find((l) => l.startsWith(`${IDENTITY_COOKIE}=`))!
    t.notMatch(line, /HttpOnly/i, 'scripts may read it: it is how another tab learns of a sign-in')
    t.match(line, /SameSite=Lax/i)
    t.match(line, /Max-Age=\d+/, 'as long as the session')

    const shown = await formIdentity(app, asA)
    t.equal(shown.email, A)
    t.equal(shown.field, identityA, "the sign-out form carries the page's identity")
    t.equal(shown.payload, identityA, 'so does the payload')

    const again = await signIn(app, A, asA)
    t.not(identityIn(again), identityA, 'signing in again, even as the same account, is a new identity')

    const out = await signOut(app, again, identityIn(again))
    t.equal(out.statusCode, 303, 'signed out with the current identity')
    t.equal(identityIn(cookiesAfter(out, again)), undefined, 'the identity cookie is expired with the session')
    const anonymous = await app.inject({ url: '/login' })
    t.equal(bootstrapOf(anonymous.body).identity, '', 'a dynamic page signed out: no identity')
    t.notOk(bootstrapOf((await app.inject({ url: '/about' })).body).identity !== undefined, 'a static page, shared by all, carries none')
  })

  t.test(`${store.kind}: a form rendered for A, posted after B signed in (another tab): 409, nothing done`, async (t) => {
    const { app } = await twoAccountApp(t, store)
    // Tab 1 as A, its form rendered.
    const asA = await signIn(app, A)
    const tab1Form = (await formIdentity(app, asA)).field!
    // Tab 2, the same browser: signs out, signs in as B.
    const out = await signOut(app, asA, tab1Form)
    const asB = await signIn(app, B, cookiesAfter(out, asA))
    t.equal((await formIdentity(app, asB)).email, B)

    // Tab 1's stale form, without JavaScript: the error page, B still signed in.
    const stale = await signOut(app, asB, tab1Form)
    t.equal(stale.statusCode, 409)
    t.match(stale.body, 'You signed in or out in another tab since this form was shown, so it was not sent.')
    t.equal(sessionCookie(stale), '', 'the session is untouched')
    t.equal((await formIdentity(app, asB)).email, B, 'B is still signed in: the sign-out was not done')

    // The same from a script: the JSON error, with its code.
    const byScript = await app.inject({
      method: 'POST',
      url: '/account',
      payload: new URLSearchParams({ _action: 'signOut', [IDENTITY_FIELD]: tab1Form }).toString(),
      headers: { ...FORM, accept: 'application/json', cookie: asB },
    })
    t.equal(byScript.statusCode, 409)
    t.equal(byScript.json().error.code, IDENTITY_CHANGED_CODE)
    t.equal((await formIdentity(app, asB)).email, B)

    // The items layout's star, a form on another dynamic page: refused the same way.
    const star = await starItem3(app, asB, tab1Form)
    t.equal(star.statusCode, 409)
    const items = await app.inject({ url: '/items/3', headers: { cookie: asB } })
    t.notMatch(items.body, /aria-pressed="true"/, 'not starred')
  })

  t.test(`${store.kind}: a signed-out tab's form after a sign-in elsewhere, and a signed-in one's after a sign-out`, async (t) => {
    const { app } = await twoAccountApp(t, store)
    // A login page rendered signed out carries the empty identity...
    const login = await app.inject({ url: '/login' })
    const loginField = new RegExp(`name="${IDENTITY_FIELD}" value="([^"]*)"`).exec(login.body)?.[1]
    t.equal(loginField, '', 'a signed-out page says so')
    // ...and posted after another tab signed in as A, it is refused: it would sign A out of the way.
    const asA = await signIn(app, A)
    const stale = await app.inject({
      method: 'POST',
      url: '/login',
      payload: new URLSearchParams({ _action: 'signIn', email: B, password: PASSWORD, next: '/account', [IDENTITY_FIELD]: '' }).toString(),
      headers: { ...FORM, cookie: asA },
    })
    t.equal(stale.statusCode, 409)
    t.equal((await formIdentity(app, asA)).email, A, 'still A')
  })

  t.test(`${store.kind}: forged, missing and replayed identities`, async (t) => {
    const { app } = await twoAccountApp(t, store)
    const asA = await signIn(app, A)
    const identityA = identityIn(asA)!
    for (const forged of ['x', 'AAAAAAAAAAAAAAAAAAAAAA', `${identityA} `, '<script>', identityA.toUpperCase()]) {
      const res = await signOut(app, asA, forged)
      t.equal(res.statusCode, 409, `a made-up identity ${JSON.stringify(forged)} does nothing`)
    }
    // A forged identity cookie changes nothing on the server: the session decides.
    const lying = asA.replace(`${IDENTITY_COOKIE}=${identityA}`, `${IDENTITY_COOKIE}=AAAAAAAAAAAAAAAAAAAAAA`)
    t.equal((await signOut(app, lying, 'AAAAAAAAAAAAAAAAAAAAAA')).statusCode, 409, 'the cookie is not what is compared')
    t.equal((await formIdentity(app, lying)).field, identityA, "the page is rendered with the session's identity, not the cookie's")
    // No field (a hand-written client): the action is for the session as it is, which its cookie already allows.
    const bare = await signOut(app, asA)
    t.equal(bare.statusCode, 303)
    // A copy of A's cookie replayed after sign-out: on a store, no session; sealed, the old session and its own identity.
    const replay = await formIdentity(app, asA)
    if (store.kind === 'memory') t.equal(replay.email, undefined, 'the store ended every copy')
    else t.equal(replay.field, identityA, 'a sealed copy is the session it was, identity and all, until its lifetimes end it')
  })
}

t.test('session expiry: the identity cookie ends with the session, and a form from before is refused', async (t) => {
  let now = Date.UTC(2026, 10, 28)
  const { app } = await createTestApp(t, 'production', {
    config: {
      sessions: { store: { kind: 'cookie' }, idleTimeoutS: 600, absoluteTimeoutS: 3600 },
      product: { DEMO_ACCOUNT: parseAccounts(`${A}:${PASSWORD},${B}:${PASSWORD}`, 'DEMO_ACCOUNT') },
    },
    sessionClock: () => now,
  })
  const res = await app.inject({
    method: 'POST',
    url: '/login',
    payload: new URLSearchParams({ _action: 'signIn', email: A, password: PASSWORD, next: '/account' }).toString(),
    headers: FORM,
  })
  const maxAge = (name: string) => /Max-Age=(\d+)/i.exec(setCookies(res).find((line) => line.startsWith(`${name}=`))!)![1]
  t.equal(maxAge(IDENTITY_COOKIE), maxAge('session'), 'the browser drops both at once: every tab then sees no identity')
  const asA = cookiesAfter(res)
  const field = (await formIdentity(app, asA)).field!
  now += 11 * 60_000 // past the idle timeout
  const guarded = await signOut(app, asA, field)
  t.equal(guarded.headers.location, '/login?next=%2Faccount', "a guarded page's form: the guard finds no one signed in")
  const star = await starItem3(app, asA, field)
  t.equal(star.statusCode, 409, "an unguarded one, rendered for A: refused, as A's session is over")
})

t.test('Redis down: a form is answered 503 as any use of the session is, not taken for another sign-in', async (t) => {
  const redis = await startRedis(t)
  const { app } = await twoAccountApp(t, { kind: 'redis', url: redis.url })
  const asA = await signIn(app, A)
  const field = (await formIdentity(app, asA)).field!
  await redis.stop()
  const res = await starItem3(app, asA, field)
  t.equal(res.statusCode, 503)
  t.equal(res.headers['retry-after'], '5')
  t.same(
    setCookies(res).filter((line) => line.startsWith(`${IDENTITY_COOKIE}=`)),
    [],
    'the identity cookie is left alone',
  )
})
