/**
 * What an operator relies on behind a proxy: request ids end to end, HSTS only over
 * https, cacheable static pages with validation, connection timeouts.
 */
import { request as httpRequest } from 'node:http'
import t from 'tap'
import { checkLayoutRules } from '../../shared/framework/layout-rules.js'
import { createRouter, type AnyRoute } from '../../shared/framework/route-table.js'
import { createTestApp, listenTestApp } from '../helpers/app.js'
import { staticLoads } from '../fixtures/app/server.js'

t.test('request ids', async (t) => {
  const { app, build, logs } = await createTestApp(t)

  t.test('every answer carries one, and it is the one in the log lines', async (t) => {
    for (const url of ['/items/7', '/nope', '/api/health', '/api/nope', build.manifest.entry.file, '/_data/about']) {
      const res = await app.inject(url)
      const id = res.headers['x-request-id']
      t.match(id, /^[0-9a-f-]{36}$/, url)
      t.ok(
        logs.some((l) => l.reqId === id),
        `${url}: logged under that id`,
      )
    }
  })

  t.test('a sane incoming X-Request-Id is kept; anything else is replaced', async (t) => {
    const kept = await app.inject({ url: '/items/7', headers: { 'x-request-id': 'lb-7f3a.42:9' } })
    t.equal(kept.headers['x-request-id'], 'lb-7f3a.42:9')
    t.ok(logs.some((l) => l.reqId === 'lb-7f3a.42:9'))
    for (const bad of ['has space', 'x'.repeat(129), 'line\\nbreak', '<script>']) {
      const res = await app.inject({ url: '/items/7', headers: { 'x-request-id': bad } })
      t.match(res.headers['x-request-id'], /^[0-9a-f-]{36}$/, JSON.stringify(bad))
    }
  })
})

t.test('HSTS only where the client came over https', async (t) => {
  const trusted = await createTestApp(t, 'production', { config: { trustProxy: ['127.0.0.1'] } })
  const viaHttps = await trusted.app.inject({ url: '/about', headers: { 'x-forwarded-proto': 'https' } })
  t.equal(viaHttps.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains')
  const viaHttp = await trusted.app.inject({ url: '/about', headers: { 'x-forwarded-proto': 'http' } })
  t.notOk(viaHttp.headers['strict-transport-security'])
  const untrusted = await createTestApp(t)
  const spoofed = await untrusted.app.inject({ url: '/about', headers: { 'x-forwarded-proto': 'https' } })
  t.notOk(spoofed.headers['strict-transport-security'], 'an untrusted peer cannot claim https')
})

t.test('caching', async (t) => {
  const { app } = await createTestApp(t)

  t.test('a static page may be kept by shared caches for 300 s and revalidated with its ETag', async (t) => {
    for (const url of ['/about', '/_data/about', '/', '/_data/']) {
      const res = await app.inject(url)
      t.equal(res.statusCode, 200, url)
      // The demo's home and about pages declare sharedCache: { maxAge: 300 }.
      t.equal(res.headers['cache-control'], 'public, max-age=300, s-maxage=300', url)
      t.equal(res.headers['cdn-cache-control'], 'max-age=300', url)
      const etag = String(res.headers.etag)
      t.match(etag, /^"(html|data)-[\w-]+-[\w-]{22}"$/, url)
      const again = await app.inject({ url, headers: { 'if-none-match': etag } })
      t.equal(again.statusCode, 304, `${url} revalidated`)
      t.equal(again.body, '', `${url}: no body`)
      t.equal(again.headers.etag, etag)
      t.equal(again.headers['cdn-cache-control'], 'max-age=300', `${url}: a 304 says it again`)
      const stale = await app.inject({ url, headers: { 'if-none-match': '"html-old-build-x"' } })
      t.equal(stale.statusCode, 200, `${url}: another ETag gets the page`)
    }
    t.not((await app.inject('/about')).headers.etag, (await app.inject('/_data/about')).headers.etag, 'HTML and data differ')
    t.equal((await app.inject('/about')).headers.etag, (await app.inject('/about')).headers.etag, 'stable across requests (the nonce is not in it)')
  })

  t.test('dynamic pages, 404s and errors are private and never stored', async (t) => {
    for (const url of ['/items/7', '/_data/items/7', '/nope', '/_data/nope', '/contact']) {
      const res = await app.inject(url)
      t.equal(res.headers['cache-control'], 'private, no-store', url)
      t.notOk(res.headers['cdn-cache-control'], url)
      t.notOk(res.headers.etag, url)
    }
  })

  t.test('a route the type checker did not see (built at run time) cannot declare a shared cache unless static', async (t) => {
    const check = (route: object) => () => checkLayoutRules(createRouter({ page: route as AnyRoute }))
    t.throws(check({ pattern: '/mine', mode: 'dynamic', sharedCache: { maxAge: 60 } }), {
      message: 'Route "page" declares sharedCache but is dynamic: only a static page is the same for every visitor',
    })
    t.throws(check({ pattern: '/ours', mode: 'static', sharedCache: { maxAge: -1 } }), {
      message: 'Route "page": sharedCache.maxAge must be whole seconds from 0 to 31536000, got -1',
    })
    t.throws(check({ pattern: '/ours', mode: 'static', sharedCache: { maxAge: 60, staleWhileRevalidate: 1.5 } }), /staleWhileRevalidate/)
    t.doesNotThrow(check({ pattern: '/ours', mode: 'static', sharedCache: { maxAge: 60, staleWhileRevalidate: 30 } }))
  })
})

t.test('a static page is rendered once per URL, then served from memory: the same bytes for everyone, no nonce needed', async (t) => {
  const { app } = await createTestApp(t, 'fixture')
  const before = staticLoads.count
  const answers = await Promise.all([1, 2, 3].map(() => app.inject('/static-page')))
  const later = await app.inject('/static-page')
  for (const res of [...answers, later]) {
    t.equal(res.statusCode, 200)
    t.match(res.body, '<h1>Static</h1>')
    const csp = String(res.headers['content-security-policy'])
    t.match(csp, /(^|;)script-src 'self'(;|$)/, 'scripts from this origin only, no nonce')
    t.notMatch(csp, 'nonce-')
    const scripts = res.body.match(/<script[^>]*>/g) ?? []
    t.ok(scripts.length >= 2)
    for (const tag of scripts) {
      t.notMatch(tag, 'nonce=')
      // What needs no nonce: data (not run) and scripts from this origin.
      t.ok(/type="application\/json"/.test(tag) || /src="\/assets\/[^"]+"/.test(tag), `${tag}: data, or a script from this origin`)
    }
  }
  t.equal(new Set([...answers, later].map((res) => res.body)).size, 1, 'the same document every time')
  t.ok(staticLoads.count - before <= 3, 'the loader ran at most once per concurrent first request')
  const laterLoads = staticLoads.count
  for (let i = 0; i < 5; i++) await app.inject('/static-page')
  t.equal(staticLoads.count, laterLoads, 'no loader run once the page is in memory')
  t.equal((await app.inject('/static-page?utm=x')).statusCode, 200, 'another URL renders on its own')
  t.equal(staticLoads.count, laterLoads + 1)

  const data = await app.inject('/_data/static-page')
  t.equal(data.statusCode, 200)
  t.match(data.headers['content-type'], /^application\/json/)
  t.equal(data.json().routeId, 'static-page', 'its page data')
  t.equal(staticLoads.count, laterLoads + 1, 'the page data came from the render, without a loader run')
  const again = await app.inject('/_data/static-page')
  t.equal(again.body, data.body)
  t.equal(again.headers.etag, data.headers.etag)
  t.equal((await app.inject({ url: '/_data/static-page', headers: { 'if-none-match': String(data.headers.etag) } })).statusCode, 304)
  await app.inject('/_data/static-page?fresh=1')
  await app.inject('/_data/static-page?fresh=1')
  t.equal(staticLoads.count, laterLoads + 2, 'page data asked for first is kept too')
})

t.test('connections stay open longer than a balancer idles (72 s)', async (t) => {
  const { origin, app } = await listenTestApp(t)
  const headers = await new Promise<Record<string, string | string[] | undefined>>((resolve, reject) => {
    httpRequest(`${origin}/api/health`, (res) => {
      res.resume()
      resolve(res.headers)
    })
      .on('error', reject)
      .end()
  })
  t.equal(headers['keep-alive'], 'timeout=72')
  t.equal(app.server.headersTimeout, 75_000, 'headers timeout above the keep-alive timeout')
  t.equal(app.server.requestTimeout, 120_000, 'a slow client is cut after 120 s')
})
