import t from 'tap'
import { createTestApp } from '../../helpers/app.js'

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
      t.notMatch(csp, /unsafe-inline|unsafe-eval/)
      t.match(csp, /object-src 'none'/)
      t.match(csp, /frame-ancestors 'none'/)
      t.match(csp, /base-uri 'self'/)
      t.equal(res.headers['x-content-type-options'], 'nosniff')
      t.equal(res.headers['x-frame-options'], 'DENY')
      t.equal(res.headers['referrer-policy'], 'strict-origin-when-cross-origin')
    })
  }
})
