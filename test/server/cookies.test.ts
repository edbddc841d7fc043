/**
 * Cookies and headers from loaders and actions: read from the request, set on every
 * kind of answer (HTML, page data, a form's redirect or JSON), with safe defaults, and
 * `Secure` exactly when the client reached us over https.
 */
import t from 'tap'
import { collectResponse } from '../../server/framework/response-control.js'
import { createTestApp } from '../helpers/app.js'
import { setCookies } from '../helpers/cookies.js'

t.test('a dynamic loader reads and sets cookies and headers, in HTML and page data alike', async (t) => {
  const { app } = await createTestApp(t, 'fixture')
  const first = await app.inject('/cookie-jar')
  t.equal(first.statusCode, 200)
  t.match(first.body, 'Visit 1')
  t.same(setCookies(first), ['visits=1; Max-Age=3600; Path=/; HttpOnly; SameSite=Lax'], 'HttpOnly, SameSite=Lax, Path=/, no Secure over http')
  t.equal(first.headers['x-visits'], '1')
  const again = await app.inject({ url: '/cookie-jar', headers: { cookie: 'visits=4; other=x' } })
  t.match(again.body, 'Visit 5', 'the loader read the cookie')
  t.same(setCookies(again), ['visits=5; Max-Age=3600; Path=/; HttpOnly; SameSite=Lax'])
  const data = await app.inject({ url: '/_data/cookie-jar', headers: { cookie: 'visits=9' } })
  t.equal(data.json().data.count, 10)
  t.same(setCookies(data), ['visits=10; Max-Age=3600; Path=/; HttpOnly; SameSite=Lax'], 'page data sets it too')
  t.equal(data.headers['x-visits'], '10')
})

t.test('Secure when the client came over https through a trusted proxy, not when an untrusted peer says so', async (t) => {
  const { app } = await createTestApp(t, 'fixture', { config: { trustProxy: ['127.0.0.1'] } })
  const proxied = await app.inject({ url: '/cookie-jar', headers: { 'x-forwarded-proto': 'https' }, remoteAddress: '127.0.0.1' })
  t.same(setCookies(proxied), ['visits=1; Max-Age=3600; Path=/; HttpOnly; Secure; SameSite=Lax'])
  const spoofed = await app.inject({ url: '/cookie-jar', headers: { 'x-forwarded-proto': 'https' }, remoteAddress: '10.9.9.9' })
  t.same(setCookies(spoofed), ['visits=1; Max-Age=3600; Path=/; HttpOnly; SameSite=Lax'])
  // Schemes are case-insensitive: a proxy that writes HTTPS means https, cookie and HSTS alike.
  const shouting = await app.inject({ url: '/cookie-jar', headers: { 'x-forwarded-proto': 'HTTPS' }, remoteAddress: '127.0.0.1' })
  t.same(setCookies(shouting), ['visits=1; Max-Age=3600; Path=/; HttpOnly; Secure; SameSite=Lax'], 'X-Forwarded-Proto: HTTPS')
  t.match(shouting.headers['strict-transport-security'], /max-age=/, 'and HSTS')
})

t.test('actions read and set cookies on their redirect and on their JSON answer', async (t) => {
  const { app } = await createTestApp(t, 'fixture')
  const post = (body: string, headers: Record<string, string> = {}) =>
    app.inject({
      method: 'POST',
      url: '/cookie-jar',
      headers: { origin: 'http://localhost:80', 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: body,
    })
  const forget = await post('_action=forget', { cookie: 'visits=3' })
  t.equal(forget.statusCode, 303)
  t.equal(setCookies(forget).length, 1)
  t.match(setCookies(forget)[0], /^visits=; Max-Age=0; Path=\/;.*Expires=Thu, 01 Jan 1970 00:00:00 GMT/, 'deleted: expired at once')
  t.match(setCookies(forget)[0], /; HttpOnly; SameSite=Lax$/, 'with the attributes a cookie gets by default')
  const remember = await post('_action=remember&value=blue', { cookie: 'remembered=red', accept: 'application/json' })
  t.same(remember.json(), { ok: true, redirect: '/cookie-jar?had=red' }, 'the action read the cookie')
  t.same(setCookies(remember), ['remembered=blue; Path=/; SameSite=Strict'], 'its own options win over the defaults')
})

t.test("a static page answer carries no cookie, and the server refuses headers that are not a page's", async (t) => {
  const { app } = await createTestApp(t, 'fixture')
  t.same(setCookies(await app.inject('/static-page')), [])
  const { control } = collectResponse({ protocol: 'http', headers: {}, cookies: {}, server: app } as never)
  for (const name of [
    'Set-Cookie',
    'content-security-policy',
    'Location',
    'x-request-id',
    'Referrer-Policy',
    'Cross-Origin-Opener-Policy',
    'Refresh',
    'Cache-Control',
  ]) {
    t.throws(() => control.setHeader(name, 'x'), TypeError, name)
  }
  t.throws(() => control.setHeader('x-ok', 'a\r\nSet-Cookie: evil=1'), 'no header injection')
  t.throws(() => control.setCookie('bad name', 'x'), TypeError, 'a cookie name must be a token')
  t.throws(() => control.setCookie('session', 'x'), TypeError, "the session's cookie is not a page's")
  t.throws(() => control.setCookie('ok', 'x', { maxAge: 1.5 }), 'a bad option fails in the loader, not while sending')
})
