import t from 'tap'
import { createTestApp } from '../../helpers/app.js'

t.test('security headers on every kind of answer', async (t) => {
  const { app, build } = await createTestApp(t)
  for (const url of ['/items/7', '/nope', '/_data/items/7', '/api/health', '/api/nope', build.manifest.entry.file]) {
    t.test(url, async (t) => {
      const res = await app.inject(url)
      const csp = String(res.headers['content-security-policy'])
      t.match(csp, /default-src 'self'/)
      t.match(csp, /script-src 'self' 'nonce-[0-9a-f]{32}'(;|$)/, 'scripts only from here or with the nonce')
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
