/**
 * The demo's sign-in: /login, the guarded account layout around /account and
 * /account/activity, sign-out, the accounts configuration, and the header's hint that
 * keeps static pages shared. Tried the way an attacker would as well as a visitor.
 */
import t from 'tap'
import type { InjectOptions } from 'fastify'
import { createTestApp } from '../helpers/app.js'
import { sessionCookie, setCookies } from '../helpers/cookies.js'
import { BOUNDARY, multipartBody } from '../helpers/multipart.js'
import { bootstrapOf } from '../helpers/page-html.js'
import { parseAccounts } from '../../server/config.js'
import { toBrowserJson } from '../../server/framework/server-only.js'
import { parseHostPattern } from '../../server/framework/allowed-hosts.js'
import { WRONG_CREDENTIALS } from '../../server/pages/login.js'

const ORIGIN = 'http://localhost:80' // what app.inject's requests are addressed to
const FORM = { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN }
const PASSWORD = 'hunter2-but-longer'

const signInBody = (email: string, password: string, next = '/account/activity') =>
  new URLSearchParams({ _action: 'signIn', email, password, next }).toString()

type App = Awaited<ReturnType<typeof createTestApp>>['app']

/** Signs in with the demo account; the cookies the browser then sends. */
async function signIn(app: App, next = '/account/activity'): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/login', payload: signInBody('demo@example.com', 'demo-password', next), headers: FORM })
  if (res.statusCode !== 303) throw new Error(`sign-in answered ${res.statusCode}`)
  return `${sessionCookie(res)}; signed_in=1`
}

t.test('signed out, both account pages send the visitor to sign in, every way they are reached', async (t) => {
  const { app } = await createTestApp(t)
  for (const path of ['/account', '/account/activity']) {
    const back = `/login?next=${encodeURIComponent(path)}`
    const requests: InjectOptions[] = [
      { url: path },
      { method: 'HEAD', url: path },
      { url: path, headers: { 'if-none-match': '*' } },
      { method: 'POST', url: path, payload: '_action=signOut', headers: FORM },
      {
        method: 'POST',
        url: path,
        payload: multipartBody([{ name: '_action', value: 'signOut' }]),
        headers: { origin: ORIGIN, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      },
    ]
    for (const request of requests) {
      const res = await app.inject(request)
      t.equal(res.statusCode, 303, `${request.method ?? 'GET'} ${path} ${JSON.stringify(request.headers ?? {})}`)
      t.equal(res.headers.location, back)
      t.notMatch(res.body, /demo@example\.com|signed in at/)
    }
    for (const held of [undefined, 'root', 'root,account']) {
      const res = await app.inject({ url: `/_data${path}`, headers: held ? { 'x-layouts-held': held } : {} })
      t.match(res.json(), { kind: 'redirect', location: back }, `page data, holding ${held ?? 'nothing'}`)
      t.notMatch(res.body, /demo@example\.com/)
    }
    const byScript = await app.inject({ method: 'POST', url: path, payload: '_action=signOut', headers: { ...FORM, accept: 'application/json' } })
    t.same(byScript.json(), { ok: true, redirect: back }, 'a script is told where to go')
  }
})

t.test('a wrong email or password: 422, one message for both, the email kept and the password nowhere', async (t) => {
  const { app, logs } = await createTestApp(t)
  for (const [email, password] of [
    ['demo@example.com', PASSWORD],
    ['nobody@example.com', 'demo-password'],
  ] as const) {
    const html = await app.inject({ method: 'POST', url: '/login', payload: signInBody(email, password), headers: FORM })
    t.equal(html.statusCode, 422)
    t.match(html.body, WRONG_CREDENTIALS)
    t.match(html.body, new RegExp(`value="${email.replace('.', '\\.')}"`), 'the email is kept')
    t.notMatch(html.body, password, 'the password is not: not in the page, not in its data')
    t.same(bootstrapOf(html.body).action.values, { email, next: '/account/activity' })
    t.same(setCookies(html), [], 'no session for a refused sign-in')
    const json = await app.inject({
      method: 'POST',
      url: '/login',
      payload: signInBody(email, password),
      headers: { ...FORM, accept: 'application/json' },
    })
    t.equal(json.statusCode, 422)
    t.same(json.json(), { ok: false, action: 'signIn', fieldErrors: {}, formError: WRONG_CREDENTIALS, values: { email, next: '/account/activity' } })
  }
  t.notMatch(JSON.stringify(logs), PASSWORD, 'nor in a log line')
})

t.test('signed in: back where the guard sent the visitor from, the account on both pages, and signed out again', async (t) => {
  const { app } = await createTestApp(t)
  const before = await app.inject('/login?next=%2Faccount%2Factivity')
  t.match(before.body, /name="next" value="\/account\/activity"/, 'the return path goes into the form')
  const res = await app.inject({ method: 'POST', url: '/login', payload: signInBody('Demo@Example.com', 'demo-password'), headers: FORM })
  t.equal(res.statusCode, 303)
  t.equal(res.headers.location, '/account/activity', 'to next')
  t.match(setCookies(res).join('\n'), /^signed_in=1; Max-Age=\d+; Path=\/; SameSite=Lax$/m, "the header's hint, readable by scripts")
  t.match(setCookies(res).join('\n'), /^session=[^;]+;.*HttpOnly/m)
  const cookie = `${sessionCookie(res)}; signed_in=1`

  const activity = await app.inject({ url: '/account/activity', headers: { cookie } })
  t.equal(activity.statusCode, 200)
  t.match(activity.body, /Signed in as <strong class="account-email">demo@example\.com<\/strong>/, 'the layout shows the email')
  t.match(activity.body, /This session signed in at <time dateTime="\d{4}-\d\d-\d\dT/i)
  t.equal(activity.headers['cache-control'], 'private, no-store')
  t.match((await app.inject({ url: '/account', headers: { cookie } })).body, /You are signed in as <strong>demo@example\.com<\/strong>/)
  t.match((await app.inject({ url: '/login', headers: { cookie } })).body, /You are signed in as demo@example\.com/)

  const out = await app.inject({ method: 'POST', url: '/account', payload: '_action=signOut', headers: { ...FORM, cookie } })
  t.equal(out.statusCode, 303)
  t.equal(out.headers.location, '/')
  t.match(setCookies(out).join('\n'), /^session=; Max-Age=0/m, 'the session cookie is expired')
  t.match(setCookies(out).join('\n'), /^signed_in=; Max-Age=0/m, 'and the hint')
})

t.test('a stale hint (the session ended elsewhere) is deleted by the guard that finds no session', async (t) => {
  const { app } = await createTestApp(t)
  const res = await app.inject({ url: '/account', headers: { cookie: 'signed_in=1' } })
  t.equal(res.statusCode, 303)
  t.match(setCookies(res).join('\n'), /^signed_in=; Max-Age=0/m)
})

t.test('a return path that would leave the site is replaced', async (t) => {
  const { app } = await createTestApp(t)
  for (const next of ['https://evil.example/', '//evil.example', '/\\evil.example', '/_data/account', 'javascript:alert(1)']) {
    const res = await app.inject({ method: 'POST', url: '/login', payload: signInBody('demo@example.com', 'demo-password', next), headers: FORM })
    t.equal(res.headers.location, '/account', JSON.stringify(next))
    const page = await app.inject(`/login?next=${encodeURIComponent(next)}`)
    t.match(page.body, /name="next" value="\/account"/, `the form does not carry ${JSON.stringify(next)}`)
  }
})

t.test('the accounts come from DEMO_ACCOUNT; the built-in one exists only on a loopback address', async (t) => {
  const configured = await createTestApp(t, 'production', {
    config: { product: { DEMO_ACCOUNT: parseAccounts(`ops@example.com:${PASSWORD}`, 'DEMO_ACCOUNT') } },
  })
  const post = (app: App, email: string, password: string) =>
    app.inject({ method: 'POST', url: '/login', payload: signInBody(email, password), headers: FORM })
  t.equal((await post(configured.app, 'ops@example.com', PASSWORD)).statusCode, 303, 'the configured account signs in')
  t.equal((await post(configured.app, 'demo@example.com', 'demo-password')).statusCode, 422, 'and the built-in one is gone')
  const exposed = await createTestApp(t, 'production', { config: { host: '0.0.0.0' } })
  t.equal((await post(exposed.app, 'demo@example.com', 'demo-password')).statusCode, 422, 'no fixed credential on another address')
  // Loopback behind a proxy on the same machine (docs/deploy.md's nginx set-up) is public too.
  const proxied = await createTestApp(t, 'production', { config: { trustProxy: ['127.0.0.1'] } })
  t.equal((await post(proxied.app, 'demo@example.com', 'demo-password')).statusCode, 422, 'nor behind a trusted proxy')
  const named = await createTestApp(t, 'production', { config: { allowedHosts: [parseHostPattern('app.example.com')!] } })
  const byName = await named.app.inject({
    method: 'POST',
    url: '/login',
    payload: signInBody('demo@example.com', 'demo-password'),
    headers: { ...FORM, host: 'app.example.com', origin: 'http://app.example.com' },
  })
  t.equal(byName.statusCode, 422, 'nor with a public host name allowed')
})

t.test('each account DEMO_ACCOUNT names signs in as itself', async (t) => {
  const accounts = parseAccounts(`ops@example.com:${PASSWORD}, Second@Example.com:another:pass-phrase`, 'DEMO_ACCOUNT')
  const { app } = await createTestApp(t, 'production', { config: { product: { DEMO_ACCOUNT: accounts } } })
  for (const [email, password] of [
    ['ops@example.com', PASSWORD],
    ['second@example.com', 'another:pass-phrase'],
  ] as const) {
    const signedIn = await app.inject({ method: 'POST', url: '/login', payload: signInBody(email, password), headers: FORM })
    t.equal(signedIn.statusCode, 303, `${email} signs in`)
    const account = await app.inject({ url: '/account', headers: { cookie: sessionCookie(signedIn) } })
    t.match(account.body, email, 'and the account page names it')
  }
  const crossed = await app.inject({ method: 'POST', url: '/login', payload: signInBody('ops@example.com', 'another:pass-phrase'), headers: FORM })
  t.equal(crossed.statusCode, 422, "one account's password does not open the other")
})

t.test('DEMO_ACCOUNT refuses what it cannot read, naming the account and never its password', async (t) => {
  const cases: [string, RegExp][] = [
    ['no-colon', /^DEMO_ACCOUNT must be one or more email:password pairs separated by commas, .*; the account is not one$/],
    [`ops@example.com:${PASSWORD},`, /account 2 of 2 is not one$/],
    [`ops@example.com:${PASSWORD},nobody:${PASSWORD}`, /account 2 of 2 is not one$/],
    ['a@b.example:short', /^DEMO_ACCOUNT needs passwords of at least 8 characters; the account \(a@b\.example\) has 5$/],
    [`a@b.example:${PASSWORD},A@B.example:${PASSWORD}x`, /^DEMO_ACCOUNT names a@b\.example twice$/],
  ]
  for (const [raw, message] of cases) {
    t.throws(() => parseAccounts(raw, 'DEMO_ACCOUNT'), message, raw)
    try {
      parseAccounts(raw, 'DEMO_ACCOUNT')
    } catch (error) {
      t.notMatch((error as Error).message, PASSWORD, 'the password is not repeated')
    }
  }
  t.notMatch(JSON.stringify(parseAccounts(`a@b.example:${PASSWORD}`, 'DEMO_ACCOUNT')), PASSWORD, 'only its hash is kept')
})

t.test("the demo's accounts and their hashes are server-only: a loader's copy of one is refused", async (t) => {
  const [account] = parseAccounts(`a@b.example:${PASSWORD}`, 'DEMO_ACCOUNT')
  t.throws(() => toBrowserJson({ account }, 'The page data of route "account"'), { path: 'account', message: /return its email, not the account$/ })
  t.throws(() => toBrowserJson({ account: { ...account } }, 'The page data of route "account"'), {
    path: 'account.password',
    message: /a password hash stays on the server/,
  })
  t.equal(toBrowserJson({ email: account!.email }, 'The page data of route "account"'), '{"email":"a@b.example"}')
})

t.test('sign-in attempts are rate-limited like every form post', async (t) => {
  const { app } = await createTestApp(t, 'production', { config: { rateLimit: { forms: 2, monitoring: 0, windowMs: 60_000, redisUrl: undefined } } })
  const statuses = []
  for (let i = 0; i < 3; i++) {
    statuses.push((await app.inject({ method: 'POST', url: '/login', payload: signInBody('demo@example.com', 'guess'), headers: FORM })).statusCode)
  }
  t.same(statuses, [422, 422, 429])
})

t.test('the header says "Sign in" or "Account" while /about stays one shared page per hint', async (t) => {
  const { app } = await createTestApp(t)
  const cookie = await signIn(app)
  const signedOut = await app.inject('/about')
  const signedIn = await app.inject({ url: '/about', headers: { cookie } })
  t.match(signedOut.body, /<html lang="en">/)
  t.match(signedIn.body, /<html lang="en" data-signed-in="">/, 'the hint on <html>, for the stylesheet')
  t.not(signedIn.headers.etag, signedOut.headers.etag, 'a cache never answers one with the other')
  t.equal(signedIn.headers['cache-control'], signedOut.headers['cache-control'], 'both are the shared static page')
  t.match(signedIn.body, /class="sign-in-link"[^>]*>Sign in<\/a>/)
  t.match(signedIn.body, /class="account-link"[^>]*>Account<\/a>/)
  const again = await app.inject({ url: '/about', headers: { cookie, 'if-none-match': String(signedIn.headers.etag) } })
  t.equal(again.statusCode, 304, 'served from memory: the same page, revalidated')
})
