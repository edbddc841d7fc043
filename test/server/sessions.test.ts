/**
 * Sessions: an encrypted cookie any instance with the secret can read; rotating the
 * secret keeps sessions; a missing secret still works, with a warning.
 */
import t from 'tap'
import { createTestApp } from '../helpers/app.js'
import { sessionCookie, sessionSetCookie } from '../helpers/cookies.js'

const K1 = 'first-secret-first-secret-first-secret!'
const K2 = 'second-secret-second-secret-second-secret'
const VALID = 'name=Ann+Example&email=ann%40example.com&message=Hello+there'

async function sendMessage(app: Awaited<ReturnType<typeof createTestApp>>['app'], headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url: '/contact',
    headers: { origin: 'http://localhost:80', 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: `_action=send&${VALID}`,
  })
}

t.test('a session sealed by one instance is read by another with the same secret, and across a rotation', async (t) => {
  const { app: a } = await createTestApp(t, 'production', { config: { sessionSecrets: [K1] } })
  const { app: b } = await createTestApp(t, 'production', { config: { sessionSecrets: [K1] } })
  const { app: rotated } = await createTestApp(t, 'production', { config: { sessionSecrets: [K2, K1] } })
  const { app: newOnly } = await createTestApp(t, 'production', { config: { sessionSecrets: [K2] } })

  const cookie = sessionCookie(await sendMessage(a))
  t.match((await b.inject({ url: '/contact', headers: { cookie } })).body, 'Thank you, Ann Example', 'another instance, same secret')

  const cookie2 = sessionCookie(await sendMessage(a))
  t.notMatch(
    (await newOnly.inject({ url: '/contact', headers: { cookie: cookie2 } })).body,
    'Thank you',
    'a new secret alone cannot open an old session',
  )
  const read = await rotated.inject({ url: '/contact', headers: { cookie: cookie2 } })
  t.match(read.body, 'Thank you, Ann Example', 'with the old secret as SESSION_SECRET_PREVIOUS it can')
  const resealed = sessionCookie(read)
  const third = sessionCookie(await sendMessage(rotated, { cookie: resealed }))
  t.match((await newOnly.inject({ url: '/contact', headers: { cookie: third } })).body, 'Thank you', 'what it writes is sealed with the new secret')
})

t.test('the session cookie is Secure when the client came over https through a trusted proxy', async (t) => {
  const { app } = await createTestApp(t, 'production', { config: { sessionSecrets: [K1], trustProxy: ['127.0.0.1'] } })
  const https = sessionSetCookie(await sendMessage(app, { 'x-forwarded-proto': 'https', origin: 'https://localhost:80' }))
  t.match(https, /; Secure/)
  const http = sessionSetCookie(await sendMessage(app))
  t.notMatch(http, /Secure/)
})

t.test('without SESSION_SECRET the server still runs, with one warning saying what that costs', async (t) => {
  const { app, logs } = await createTestApp(t)
  const warnings = logs.filter((line) => String(line.msg).startsWith('SESSION_SECRET is unset'))
  t.equal(warnings.length, 1)
  t.equal(warnings[0]!.level, 40)
  const cookie = sessionCookie(await sendMessage(app))
  t.match((await app.inject({ url: '/contact', headers: { cookie } })).body, 'Thank you', 'sessions work within the process')
})

t.test('the page data that takes a flash message says it is for once; the next, without one, does not', async (t) => {
  const { app } = await createTestApp(t, 'production', { config: { sessionSecrets: [K1] } })
  const cookie = sessionCookie(await sendMessage(app))
  const thanked = await app.inject({ url: '/_data/contact', headers: { cookie, accept: 'application/json' } })
  t.match(thanked.json(), { kind: 'page', data: { thanks: /^Thank you, Ann Example/ }, once: true }, 'the browser never reuses it from its cache')
  const emptied = sessionCookie(thanked)
  const plain = await app.inject({ url: '/_data/contact', headers: { cookie: emptied, accept: 'application/json' } })
  t.match(plain.json(), { kind: 'page', data: { thanks: null } })
  t.equal(plain.json().once, undefined, 'nothing changed: an ordinary page, cached for its lifetime')
})

t.test('page data asked for by another build runs no loader: the flash waits for the document load that follows', async (t) => {
  const { app, build } = await createTestApp(t, 'production', { config: { sessionSecrets: [K1] } })
  const cookie = sessionCookie(await sendMessage(app))
  const stale = await app.inject({ url: '/_data/contact', headers: { cookie, accept: 'application/json', 'x-build-id': 'an-older-build' } })
  t.equal(stale.statusCode, 409)
  t.same(stale.json(), {
    kind: 'error',
    status: 409,
    message: 'This page was loaded from another version of the app: it is loaded again.',
    buildId: build.manifest.buildId,
  })
  t.equal(stale.headers['cache-control'], 'private, no-store')
  t.notOk(stale.headers['set-cookie'], 'the session is untouched')
  // The cookie a browser holds now: the stale answer's, had it set one.
  const held = stale.headers['set-cookie'] ? sessionCookie(stale) : cookie
  const page = await app.inject({ url: '/contact', headers: { cookie: held } })
  t.match(page.body, 'Thank you, Ann Example', 'the document load still finds the flash')
  const same = await app.inject({ url: '/_data/contact', headers: { cookie, accept: 'application/json', 'x-build-id': build.manifest.buildId } })
  t.equal(same.statusCode, 200, 'its own build is answered as ever')
})

t.test('a session too large for a cookie fails where it was set, instead of being dropped by the browser', async (t) => {
  const { app, logs } = await createTestApp(t, 'fixture', { config: { sessionSecrets: [K1] } })
  const hoard = (size: number) =>
    app.inject({
      method: 'POST',
      url: '/guestbook',
      headers: { origin: 'http://localhost:80', 'content-type': 'application/x-www-form-urlencoded' },
      payload: `_action=hoard&size=${size}`,
    })
  const small = await hoard(1_000)
  t.equal(small.statusCode, 303)
  t.ok(sessionSetCookie(small), 'a session that fits is sent')
  const large = await hoard(6_000)
  t.equal(large.statusCode, 500, 'the action fails, as any failure of its own does')
  t.ok(sessionCookie(large).length <= 4096, 'no cookie a browser would drop')
  const line = logs.find((l) => l.msg === 'action failed')
  t.match(line?.err?.message, /^The session would be a cookie of \d+ bytes, and browsers drop cookies over 4096/)
  t.notMatch(large.body, 'browsers drop', 'the message stays in the log')
})

t.test('a HEAD request leaves the session as it was: the flash is still there for the GET', async (t) => {
  const { app } = await createTestApp(t, 'production', { config: { sessionSecrets: [K1] } })
  const cookie = sessionCookie(await sendMessage(app))
  const head = await app.inject({ method: 'HEAD', url: '/contact', headers: { cookie } })
  t.equal(head.statusCode, 200)
  t.equal(sessionSetCookie(head), '', 'no session cookie written')
  const held = sessionSetCookie(head) ? sessionCookie(head) : cookie // what a browser would hold now
  const page = await app.inject({ url: '/contact', headers: { cookie: held } })
  t.match(page.body, 'Thank you, Ann Example', 'the GET shows the thanks')
})
