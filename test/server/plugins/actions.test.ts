import t from 'tap'
import { createTestApp } from '../../helpers/app.js'
import { sessionCookie, sessionSetCookie } from '../../helpers/cookies.js'
import { parseHostPattern } from '../../../server/framework/allowed-hosts.js'
import { SECRET_MESSAGE } from '../../fixtures/app/routes.js'

const ORIGIN = 'http://localhost:80' // what app.inject's requests are addressed to
const FORM = 'application/x-www-form-urlencoded'

function post(url: string, body: string, headers: Record<string, string> = {}) {
  return { method: 'POST' as const, url, payload: body, headers: { 'content-type': FORM, origin: ORIGIN, ...headers } }
}

const VALID = 'name=Ann+Example&email=ann%40example.com&message=Hello+there'

t.test('/contact: the example action', async (t) => {
  const { app, logs } = await createTestApp(t)

  t.test('a valid message answers 303 See Other back to /contact and is logged as one structured line', async (t) => {
    const res = await app.inject(post('/contact', `_action=send&${VALID}`))
    t.equal(res.statusCode, 303)
    t.equal(res.headers.location, '/contact')
    const lines = logs.filter((l) => l.event === 'contact.message')
    t.equal(lines.length, 1)
    t.same(lines[0]!.contact, { name: 'Ann Example', email: 'ann@example.com', message: 'Hello there', attachment: null })
    t.match(lines[0]!.reqId, /^[0-9a-f-]{36}$/)
  })

  t.test('the page after a sent message thanks the sender once, from a flash in the session', async (t) => {
    const sent = await app.inject(post('/contact', `_action=send&${VALID}`))
    const cookie = sessionSetCookie(sent)
    t.match(cookie, /^session=[^;]+; Max-Age=1209600; Path=\/; HttpOnly; SameSite=Lax/, 'an encrypted session cookie, HttpOnly, SameSite=Lax')
    // Encrypted, not just encoded: no part of the value, read as base64, holds the name. (A
    // search of the raw value for "Ann" found it by chance in about one cookie of a thousand.)
    const value = decodeURIComponent(cookie.slice('session='.length, cookie.indexOf(';')))
    const readings = value.split(/[^A-Za-z0-9+/=_-]+/).map((part) => Buffer.from(part, 'base64').toString('latin1'))
    t.notMatch([value, ...readings].join('\n'), 'Ann Example', 'nothing readable in it')
    const thanked = await app.inject({ url: '/contact', headers: { cookie: sessionCookie(sent) } })
    t.match(thanked.body, '<h1>Thank you</h1>')
    t.match(thanked.body, 'Thank you, Ann Example. Your message has been sent')
    const again = await app.inject({ url: '/contact', headers: { cookie: sessionCookie(thanked) } })
    t.match(again.body, '<h1>Contact</h1>', 'once: the next visit shows the form alone')
    t.notMatch(again.body, 'Thank you')
    t.notMatch((await app.inject('/contact?sent=1')).body, 'Thank you', 'a URL cannot fake it')
  })

  t.test('a tampered session cookie is an empty session, not an error', async (t) => {
    const cookie = sessionCookie(await app.inject(post('/contact', `_action=send&${VALID}`)))
    const value = cookie.slice('session='.length)
    const flipped = `session=${value.slice(0, 10)}${value[10] === 'A' ? 'B' : 'A'}${value.slice(11)}`
    const res = await app.inject({ url: '/contact', headers: { cookie: flipped } })
    t.equal(res.statusCode, 200)
    t.match(res.body, '<h1>Contact</h1>', 'no thanks from a forged session')
  })

  t.test('an invalid message: the page again with 422, errors by their fields, values kept', async (t) => {
    const before = logs.filter((l) => l.event === 'contact.message').length
    const res = await app.inject(post('/contact', '_action=send&name=&email=not-an-email&message=%3Cb%3Ehi%3C%2Fb%3E'))
    t.equal(res.statusCode, 422)
    t.equal(res.headers['content-type'], 'text/html; charset=utf-8')
    t.equal(res.headers['cache-control'], 'private, no-store')
    t.match(res.body, /aria-invalid="true"[^>]*>?[^]*?Please enter your name\./)
    t.match(res.body, 'Please enter a valid email address.')
    t.match(res.body, /name="email"[^>]*value="not-an-email"/, 'the email field keeps what was typed')
    t.match(res.body, /<textarea[^>]*name="message"[^>]*>&lt;b&gt;hi&lt;\/b&gt;<\/textarea>/, 'the message too, escaped')
    t.notMatch(res.body, 'Please enter a message.', 'no error for a valid field')
    t.equal(logs.filter((l) => l.event === 'contact.message').length, before, 'nothing logged as sent')
  })

  t.test('limits: name over 80, message over 2000, a malformed email', async (t) => {
    const cases: Array<[string, string]> = [
      [`name=${'a'.repeat(81)}&email=a%40b.co&message=x`, 'Your name can be at most 80 characters.'],
      [`name=A&email=a%40b.co&message=${'m'.repeat(2001)}`, 'Your message can be at most 2000 characters.'],
      ['name=A&email=a%40b&message=x', 'Please enter a valid email address.'],
      ['name=A&email=a+b%40c.co&message=x', 'Please enter a valid email address.'],
    ]
    for (const [body, message] of cases) {
      const res = await app.inject(post('/contact', `_action=send&${body}`, { accept: 'application/json' }))
      t.equal(res.statusCode, 422, message)
      t.match(Object.values(res.json().fieldErrors), [message])
    }
    const ok = await app.inject(post('/contact', `_action=send&name=${'a'.repeat(80)}&email=a%40b.co&message=${'m'.repeat(2000)}`))
    t.equal(ok.statusCode, 303, 'exactly at the limits is fine')
  })

  t.test('with Accept: application/json, success and refusal are JSON', async (t) => {
    const ok = await app.inject(post('/contact', `_action=send&${VALID}`, { accept: 'application/json' }))
    t.equal(ok.statusCode, 200)
    t.same(ok.json(), { ok: true, redirect: '/contact' })
    const refused = await app.inject(post('/contact', '_action=send&name=A&email=x&message=y', { accept: 'application/json' }))
    t.equal(refused.statusCode, 422)
    t.same(refused.json(), {
      ok: false,
      action: 'send',
      fieldErrors: { email: 'Please enter a valid email address.' },
      values: { name: 'A', email: 'x', message: 'y' },
    })
  })
})

t.test('every form post is checked', async (t) => {
  const { app, logs } = await createTestApp(t, 'fixture')

  t.test('a cross-origin post is refused with 403 and the action does not run', async (t) => {
    const res = await app.inject(post('/guestbook', '_action=sign&name=Mallory', { origin: 'https://evil.example' }))
    t.equal(res.statusCode, 403)
    t.match(res.body, 'Form posts from another origin are refused')
    t.notMatch(res.body, 'evil.example', 'the origin is not quoted back')
    const page = await app.inject('/guestbook')
    t.notMatch(page.body, 'Mallory', 'nothing was signed')
    t.ok(logs.some((l) => l.msg === 'cross-origin form post refused'))
  })

  t.test('the origin is compared whole: scheme, host and port', async (t) => {
    for (const origin of ['https://localhost', 'http://localhost:8080', 'http://localhost.evil.example', 'null']) {
      const res = await app.inject(post('/guestbook', '_action=sign&name=Eve', { origin, accept: 'application/json' }))
      t.equal(res.statusCode, 403, origin)
      t.equal(res.json().error.code, 'APP_ERR_CROSS_ORIGIN', origin)
    }
  })

  t.test('no Origin: the Referer decides; neither: 403', async (t) => {
    const viaReferer = await app.inject({
      ...post('/guestbook', '_action=sign&name=Rita'),
      headers: { 'content-type': FORM, referer: `${ORIGIN}/guestbook` },
    })
    t.equal(viaReferer.statusCode, 303, 'a same-origin Referer is enough')
    const foreignReferer = await app.inject({
      ...post('/guestbook', '_action=sign&name=Eve'),
      headers: { 'content-type': FORM, referer: 'https://evil.example/page' },
    })
    t.equal(foreignReferer.statusCode, 403)
    const neither = await app.inject({ ...post('/guestbook', '_action=sign&name=Eve'), headers: { 'content-type': FORM } })
    t.equal(neither.statusCode, 403)
    t.match(neither.body, 'must carry an Origin or Referer header')
  })

  t.test('a body over 1 MiB is refused with 413', async (t) => {
    const res = await app.inject(post('/guestbook', `_action=sign&name=${'a'.repeat(1024 * 1024)}`, { accept: 'application/json' }))
    t.equal(res.statusCode, 413)
    t.equal(res.json().error.code, 'APP_ERR_BODY_TOO_LARGE')
  })

  t.test('anything but a urlencoded form is refused with 415', async (t) => {
    for (const type of ['application/json', 'text/plain', 'multipart/form-data; boundary=x']) {
      const res = await app.inject(post('/guestbook', '{"_action":"sign"}', { 'content-type': type }))
      t.equal(res.statusCode, 415, type)
      t.match(res.body, 'Forms must be sent as application/x-www-form-urlencoded', type)
    }
    const empty = await app.inject({ method: 'POST', url: '/guestbook', headers: { origin: ORIGIN } })
    t.equal(empty.statusCode, 415, 'no body at all')
  })

  t.test('a form declaring a charset other than UTF-8 is refused with 415, never read as UTF-8', async (t) => {
    const latin1 = await app.inject(
      post('/guestbook', '_action=sign&name=Ren%E9', { 'content-type': `${FORM}; charset=iso-8859-1`, accept: 'application/json' }),
    )
    t.equal(latin1.statusCode, 415)
    t.equal(latin1.json().error.code, 'APP_ERR_UNSUPPORTED_MEDIA_TYPE')
    t.equal(latin1.json().error.message, 'Forms must be sent in UTF-8, not "iso-8859-1".')
    for (const charset of ['utf-8', 'UTF-8', '"utf8"', 'us-ascii']) {
      const utf8 = await app.inject(post('/guestbook', '_action=sign&name=Rene', { 'content-type': `${FORM}; charset=${charset}` }))
      t.equal(utf8.statusCode, 303, `charset=${charset} is taken`)
    }
  })

  t.test('an unknown action is a 404 naming it; a missing one a 400', async (t) => {
    const unknown = await app.inject(post('/guestbook', '_action=delete_everything'))
    t.equal(unknown.statusCode, 404)
    t.match(unknown.body, 'This page has no action named &quot;delete_everything&quot;.')
    t.match(unknown.body, '<title>404: This page has no action named &quot;delete_everything&quot;.</title>', 'the title says what it is')
    const inherited = await app.inject(post('/guestbook', '_action=toString', { accept: 'application/json' }))
    t.equal(inherited.statusCode, 404, 'names inherited from Object are not actions')
    const missing = await app.inject(post('/guestbook', 'name=Ann', { accept: 'application/json' }))
    t.equal(missing.statusCode, 400)
    t.equal(missing.json().error.code, 'APP_ERR_NO_ACTION')
  })

  t.test('a page without actions answers 405 with Allow: GET, HEAD; no page at all is a 404', async (t) => {
    const res = await app.inject(post('/target', '_action=sign&name=Ann'))
    t.equal(res.statusCode, 405)
    t.equal(res.headers.allow, 'GET, HEAD')
    t.match(res.body, 'This page has no actions to post to.')
    const nowhere = await app.inject(post('/nope', '_action=sign'))
    t.equal(nowhere.statusCode, 404)
  })

  t.test('an action that throws: 500 with a digest, logged, no message in the answer', async (t) => {
    const html = await app.inject(post('/guestbook', '_action=explode&name=x'))
    t.equal(html.statusCode, 500)
    t.match(html.body, 'Application error: a server-side exception has occurred')
    t.notMatch(html.body, SECRET_MESSAGE)
    const json = await app.inject(post('/guestbook', '_action=explode&name=x', { accept: 'application/json' }))
    t.equal(json.statusCode, 500)
    const { error } = json.json()
    t.equal(error.message, 'Internal server error')
    t.notMatch(json.body, SECRET_MESSAGE)
    const line = logs.find((l) => l.msg === 'action failed' && l.digest === error.digest)
    t.equal(line?.err?.message, SECRET_MESSAGE)
    t.equal(line?.action, 'explode')
    t.match(html.body, `Digest: ${error.digest}`, 'the same bug, the same digest')
  })

  t.test('an action without a redirect answers 303 back to the page it was posted to', async (t) => {
    const res = await app.inject(post('/guestbook?from=test', '_action=sign&name=Sam'))
    t.equal(res.statusCode, 303)
    t.equal(res.headers.location, '/guestbook?from=test')
    t.match((await app.inject('/guestbook')).body, '<li>Sam</li>')
  })
})

t.test('behind a proxy', async (t) => {
  const forwarded = { 'x-forwarded-host': 'shop.example', 'x-forwarded-proto': 'https', origin: 'https://shop.example' }

  t.test('a post whose Origin matches the forwarded host is accepted when the proxy is trusted', async (t) => {
    const { app } = await createTestApp(t, 'fixture', { config: { trustProxy: ['127.0.0.1'], allowedHosts: [parseHostPattern('shop.example')!] } })
    const res = await app.inject(post('/guestbook', '_action=sign&name=Proxied', forwarded))
    t.equal(res.statusCode, 303)
  })

  t.test('the same headers from a peer that is not a trusted proxy are not believed', async (t) => {
    const { app } = await createTestApp(t, 'fixture', { config: { trustProxy: ['10.0.0.1'] } })
    const res = await app.inject(post('/guestbook', '_action=sign&name=Spoofed', forwarded))
    t.equal(res.statusCode, 403)
  })

  t.test('an origin in ALLOWED_ORIGINS may post', async (t) => {
    const { app } = await createTestApp(t, 'fixture', { config: { allowedOrigins: ['https://partner.example'] } })
    const res = await app.inject(post('/guestbook', '_action=sign&name=Partner', { origin: 'https://partner.example' }))
    t.equal(res.statusCode, 303)
  })
})
