import t from 'tap'
import { createTestApp, listenTestApp } from '../../helpers/app.js'
import { rawRequest } from '../../helpers/raw-http.js'

t.test('security headers on every kind of answer', async (t) => {
  const { app, build } = await createTestApp(t)
  const documents = new Set(['/items/7', '/nope'])
  for (const url of ['/items/7', '/nope', '/_data/items/7', '/api/health', '/api/nope', build.manifest.entry.file]) {
    t.test(url, async (t) => {
      const res = await app.inject(url)
      const csp = String(res.headers['content-security-policy'])
      t.match(csp, /default-src 'self'/)
      if (documents.has(url)) {
        // A rendered document's inline scripts carry this answer's nonce, and only it.
        const nonce = /script-src 'self' 'nonce-([0-9a-f]{32})'(;|$)/.exec(csp)?.[1]
        t.ok(nonce, 'scripts only from here or with the nonce')
        t.match(res.body, `<script type="application/json" id="__page_data" nonce="${nonce}">`)
      } else {
        // Nothing inline to allow: no nonce drawn for data, JSON or an asset.
        t.match(csp, /script-src 'self'(;|$)/, 'scripts only from here')
      }
      t.notMatch(csp, /unsafe-eval/)
      // Style attributes alone (decision 032): never scripts, never <style> elements.
      t.same(
        csp.split(';').filter((directive) => directive.includes('unsafe-inline')),
        ["style-src-attr 'unsafe-inline'"],
        'unsafe-inline only for style attributes',
      )
      t.match(csp, /object-src 'none'/)
      t.match(csp, /frame-ancestors 'none'/)
      t.match(csp, /base-uri 'self'/)
      t.equal(res.headers['x-content-type-options'], 'nosniff')
      t.equal(res.headers['x-frame-options'], 'DENY')
      t.equal(res.headers['referrer-policy'], 'strict-origin-when-cross-origin')
    })
  }
})

t.test('every document draws its own nonces, across refills of the random pool', async (t) => {
  const { app } = await createTestApp(t)
  const seen = new Set<string>()
  // More answers than one refill of the pool serves (128), so a refill that handed out
  // the same bytes again would show as a repeat.
  for (let i = 0; i < 300; i++) {
    const csp = String((await app.inject('/items/7')).headers['content-security-policy'])
    const [, script, style] = /script-src 'self' 'nonce-([0-9a-f]{32})'.*style-src [^;]*'nonce-([0-9a-f]{32})'/.exec(csp) ?? []
    t.ok(script && style && script !== style, `answer ${i}: two different nonces`)
    seen.add(script!).add(style!)
  }
  t.equal(seen.size, 600, 'no nonce ever repeats')
})

t.test('Cross-Origin-Opener-Policy: none by default, and the chosen one on every answer when set', async (t) => {
  const { app } = await createTestApp(t)
  for (const url of ['/about', '/items/7', '/api/health']) {
    const res = await app.inject(url)
    t.equal(res.headers['cross-origin-opener-policy'], undefined, `${url}: none by default`)
    t.equal(res.headers['cross-origin-resource-policy'], 'same-origin', `${url}: the other headers stay`)
  }

  const { app: isolated, origin } = await listenTestApp(t, 'production', { config: { openerPolicy: 'same-origin' } })
  for (const url of ['/about', '/items/7', '/_data/items/7', '/api/health', '/nope']) {
    const res = await isolated.inject(url)
    t.equal(res.headers['cross-origin-opener-policy'], 'same-origin', `${url}: the configured policy`)
  }
  // Answers written outside Fastify's hooks carry it too: a request Fastify refused
  // before routing, and a header block Node refused.
  const refused = await isolated.inject({ url: '/about', headers: { host: 'evil.example' } })
  t.equal(refused.statusCode, 421, 'a Host this server does not answer')
  t.equal(refused.headers['cross-origin-opener-policy'], 'same-origin', 'refused before routing')
  const tooLarge = await rawRequest(origin, `GET /about HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'x'.repeat(20_000)}\r\n\r\n`)
  t.equal(tooLarge.status, 431, 'headers over the limit')
  t.equal(tooLarge.headers['cross-origin-opener-policy'], 'same-origin', 'refused by Node')
})
