/**
 * The product's pages as the server answers them: the document, its preloads, nonces
 * and page data, the root layout, head entries, redirects and methods. The outcomes
 * only the test-only application gives (failing loaders, render errors): page-outcomes.test.ts.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { createTestApp } from '../../helpers/app.js'
import { bootstrapOf } from '../../helpers/page-html.js'

t.test('production screens', async (t) => {
  const { app, build } = await createTestApp(t)

  t.test('/items/7 is rendered whole: the 200 rows, preloads and the page data', async (t) => {
    const res = await app.inject('/items/7')
    t.equal(res.statusCode, 200)
    t.equal(res.headers['content-type'], 'text/html; charset=utf-8')
    t.equal(res.headers['cache-control'], 'private, no-store')
    const html = res.body
    t.match(html, /^<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport"/)
    t.match(html, '<title>Item list 7</title>')
    t.match(html, /<h1>Item list 7<\/h1>/)
    t.equal(html.match(/<tr><td>\d+<\/td>/g)?.length, 200, '200 server-rendered rows')
    t.match(html, '<tr><td>0</td><td>row-7-0</td><td>0.70</td><td>a0, b0</td></tr>')
    t.match(html, '<tr><td>199</td><td>row-7-199</td><td>37.00</td><td>a4, b3</td></tr>')
    t.match(html, `<link rel="modulepreload" href="${build.manifest.entry.file}"`)
    t.match(html, `<link rel="modulepreload" href="${build.manifest.routes.items!.file}"`)
    t.notMatch(html, build.manifest.routes.about!.file, 'another route chunk is not preloaded')
    // The stylesheet is in the document (no request before the first paint), allowed by its hash.
    const css = readFileSync(path.join(build.clientDir, build.manifest.css[0]!), 'utf8')
    t.match(html, `<style>${css}</style>`)
    t.notMatch(html, '<link rel="stylesheet"', 'no stylesheet to fetch')
    const styleHash = `'sha256-${createHash('sha256').update(css).digest('base64')}'`
    t.match(String(res.headers['content-security-policy']), new RegExp(`style-src 'self' ${styleHash.replace(/[+/]/g, '\\$&')}`))
    // The page's chunk is the script (it imports the entry, preloaded above): one task runs both.
    t.match(html, `<script type="module" src="${build.manifest.routes.items!.file}" nonce=`)
    t.ok(build.manifest.routes.items!.imports.includes(build.manifest.entry.file), 'the route chunk imports the entry')
    const payload = bootstrapOf(html)
    t.same(
      { kind: payload.kind, routeId: payload.routeId, params: payload.params, buildId: payload.buildId },
      { kind: 'page', routeId: 'items', params: { id: '7' }, buildId: build.manifest.buildId },
    )
    t.equal(payload.data.rows.length, 200)
    t.same(payload.data.rows[3], { n: 3, name: 'row-7-3', price: 11.8, tags: ['a3', 'b3'] })
    t.match(html, /<a href="\/items\/1">Item list 1<\/a>/)
    t.match(html, /<a href="\/about">About<\/a>/)
    t.match(html, /<button type="button" class="counter">/)
  })

  t.test('every script carries the nonce of the response CSP', async (t) => {
    const res = await app.inject('/items/7')
    const csp = String(res.headers['content-security-policy'])
    const nonce = /script-src 'self' 'nonce-([^']+)'/.exec(csp)?.[1]
    t.ok(nonce, 'the CSP names a script nonce')
    const scripts = res.body.match(/<script[^>]*>/g) ?? []
    t.ok(scripts.length >= 2)
    for (const tag of scripts) t.match(tag, `nonce="${nonce}"`)
    const second = await app.inject('/items/7')
    t.not(/'nonce-([^']+)'/.exec(String(second.headers['content-security-policy']))?.[1], nonce, 'fresh per response')
  })

  for (const [path, h1, title] of [
    ['/', 'Server-rendered React on Fastify', 'Home'],
    ['/about', 'About', 'About'],
  ] as const) {
    t.test(`${path} is a static page`, async (t) => {
      const res = await app.inject(path)
      t.equal(res.statusCode, 200)
      t.match(res.body, `<h1>${h1}</h1>`)
      t.match(res.body, `<title>${title}</title>`)
      t.equal(bootstrapOf(res.body).mode, 'static')
    })
  }

  t.test('/about links to /items/1', async (t) => {
    const res = await app.inject('/about')
    t.match(res.body, '<a href="/items/1">')
  })

  for (const path of ['/nope', '/items/abc', '/items/12345678901234567', '/items/7/more', '/Items/7']) {
    t.test(`${path} is the 404 page`, async (t) => {
      const res = await app.inject(path)
      t.equal(res.statusCode, 404)
      t.equal(res.headers['content-type'], 'text/html; charset=utf-8')
      t.match(res.body, '<h1>404: This page could not be found.</h1>')
      t.match(res.body, '<title>Page not found</title>')
      t.equal(bootstrapOf(res.body).kind, 'not-found')
      t.match(res.body, `<script type="module" src="${build.manifest.entry.file}" nonce=`, 'no page chunk: the entry is the script')
    })
  }

  t.test('a trailing slash redirects to the one URL of the page, and never off-site', async (t) => {
    const cases: Array<[string, string]> = [
      ['/about/', '/about'],
      ['/items/7/?x=1', '/items/7?x=1'],
      ['//evil.example/', '/evil.example'],
      // The query keeps its bytes: Latin-1 `%E9` is not made U+FFFD for good.
      ['/about/?q=caf%E9&x=%C0%AF', '/about?q=caf%E9&x=%C0%AF'],
      ['/about/?a=1%&b=\\', '/about?a=1%25&b=%5C'],
    ]
    for (const [from, to] of cases) {
      const res = await app.inject(from)
      t.equal(res.statusCode, 308, from)
      t.equal(res.headers.location, to, from)
    }
  })

  t.test('HEAD answers the status and headers without a body', async (t) => {
    const res = await app.inject({ method: 'HEAD', url: '/items/7' })
    t.equal(res.statusCode, 200)
    t.equal(res.headers['content-type'], 'text/html; charset=utf-8')
    t.equal(res.body, '')
  })

  t.test('other methods on a page: 405 naming what is allowed; OPTIONS lists it; no page is a 404', async (t) => {
    for (const [method, url, allow] of [
      // Every page takes POST: the root layout's theme form posts to the page it is on.
      ['PUT', '/about', 'GET, HEAD, POST'],
      ['DELETE', '/items/7', 'GET, HEAD, POST'],
      ['PATCH', '/contact', 'GET, HEAD, POST'],
    ] as const) {
      const res = await app.inject({ method, url })
      t.equal(res.statusCode, 405, `${method} ${url}`)
      t.equal(res.headers.allow, allow, `${method} ${url}`)
      t.match(res.headers['content-type'], /^text\/html/)
      t.match(res.body, `<h1>405</h1><p>This page does not take ${method} requests (it allows ${allow}).</p>`)
    }
    const options = await app.inject({ method: 'OPTIONS', url: '/contact' })
    t.equal(options.statusCode, 204)
    t.equal(options.headers.allow, 'GET, HEAD, POST')
    const missing = await app.inject({ method: 'PUT', url: '/nope' })
    t.equal(missing.statusCode, 404)
    t.match(missing.body, '<h1>404</h1><p>This page could not be found.</p>', 'the words of the not-found page')
    t.equal(
      (await app.inject({ method: 'PUT', url: '/api/health' })).headers['content-type'],
      'application/json; charset=utf-8',
      '/api keeps its own answers',
    )
  })
})

t.test("the product's root layout wraps every page, the not-found page included, marking the current section", async (t) => {
  const { app } = await createTestApp(t)
  const current = (html: string) => {
    const nav = /<nav aria-label="Main">([^]*?)<\/nav>/.exec(html)?.[1] ?? ''
    return [...nav.matchAll(/<a[^>]*aria-current="page"[^>]*>([^<]*)<\/a>/g)].map((m) => m[1])
  }
  const cases: Array<[string, string[]]> = [
    ['/', ['Home']],
    ['/items/7', ['Items']],
    ['/about', ['About']],
    ['/contact', ['Contact']],
    ['/nope', []],
  ]
  for (const [path, sections] of cases) {
    const html = (await app.inject(path)).body
    t.match(
      html,
      /<header class="site-header">[^]*<nav aria-label="Main">[^]*<\/nav><\/header><main id="main"/,
      `${path}: header and nav before the page`,
    )
    t.match(html, /<\/main><footer class="site-footer">/, `${path}: the footer after it`)
    t.same(current(html), sections, `${path}: the current section`)
  }
})

t.test('head entries: description, canonical, robots, Open Graph', async (t) => {
  const { app } = await createTestApp(t)
  const head = (html: string) => /<head>([^]*?)<\/head>/.exec(html)?.[1] ?? ''
  const items = head((await app.inject('/items/7')).body)
  t.match(items, '<meta name="description" content="Item list 7: 200 rows of names, prices and tags." data-head>')
  t.match(items, '<link rel="canonical" href="/items/7" data-head>')
  t.match(items, '<meta property="og:title" content="Item list 7" data-head>')
  t.equal(items.match(/<meta property="og:type" content="website" data-head>/g)?.length, 1)
  t.notMatch(items, 'name="robots"', 'a page to index')
  t.match(
    head((await app.inject('/items/007?sort=name')).body),
    '<link rel="canonical" href="/items/7" data-head>',
    'one canonical URL however the list was reached',
  )
  for (const path of ['/', '/about', '/contact']) {
    const html = head((await app.inject(path)).body)
    t.equal(html.match(/<meta name="description" content="[^"]+" data-head>/g)?.length, 1, `${path}: one description`)
    t.notMatch(html, 'rel="canonical"', `${path}: no canonical it did not declare`)
  }
  t.match(head((await app.inject('/nope')).body), '<meta name="robots" content="noindex" data-head>', 'a 404 is not indexed')
})

t.test('page data', async (t) => {
  const { app, build } = await createTestApp(t)

  t.test('/_data/items/7 answers the page as JSON with the build id', async (t) => {
    const res = await app.inject('/_data/items/7')
    t.equal(res.statusCode, 200)
    t.match(res.headers['content-type'], /^application\/json/)
    t.equal(res.headers['cache-control'], 'private, no-store')
    const body = res.json()
    t.equal(body.kind, 'page')
    t.equal(body.routeId, 'items')
    t.equal(body.buildId, build.manifest.buildId)
    t.same(body.params, { id: '7' })
    t.equal(body.data.title, 'Item list 7')
    t.equal(body.data.rows.length, 200)
  })

  t.test('/_data/ is the home page and /_data/about a static page', async (t) => {
    t.equal((await app.inject('/_data/')).json().routeId, 'home')
    t.equal((await app.inject('/_data/about')).json().mode, 'static')
  })

  t.test('an unknown page answers a not-found payload with 404', async (t) => {
    for (const path of ['/_data/nope', '/_data/items/abc']) {
      const res = await app.inject(path)
      t.equal(res.statusCode, 404, path)
      t.same(res.json(), { kind: 'not-found', status: 404, buildId: build.manifest.buildId }, path)
    }
  })

  t.test('a trailing slash is a redirect payload (a fetch must not follow a 3xx on its own)', async (t) => {
    const res = await app.inject('/_data/about/')
    t.equal(res.statusCode, 200)
    t.same(res.json(), { kind: 'redirect', status: 308, location: '/about', buildId: build.manifest.buildId })
    const latin1 = await app.inject('/_data/about/?q=caf%E9')
    t.equal(latin1.json().location, '/about?q=caf%E9', 'the query as it was sent')
  })
})
