/**
 * The edges real traffic hits in a URL or a body: URLs in every encoding, malformed
 * ones, bodies Fastify refuses before a handler, redirects that try to leave the site,
 * methods an address does not take. Every refusal is the app's own answer: the
 * surface's form, every security header, the request id, nothing echoed back. Host
 * headers and what happens on the connection: hostile-connections.test.ts.
 */
import t from 'tap'
import type { InjectOptions } from 'fastify'
import { isSameSitePath } from '../../shared/framework/errors.js'
import { createTestApp, listenTestApp } from '../helpers/app.js'
import { rawRequest } from '../helpers/raw-http.js'
import { appAnswerAsserter } from '../helpers/security-headers.js'
import fixtureApiRoutes from '../fixtures/api.js'

const assertAppAnswer = await appAnswerAsserter((await createTestApp(t)).app)

/** The text React rendered into `<main>`, tags removed. */
function mainText(html: string): string {
  const main = /<main id="main"[^>]*>([^]*?)<\/main>/.exec(html)
  return (main?.[1] ?? '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
}

t.test('percent-encoded URLs render their page on the server, in HTML and as page data', async (t) => {
  const { app } = await createTestApp(t)
  const cases: Array<[url: string, status: number, heading: string]> = [
    ['/contact?name=%E5%90%8D', 200, 'Contact'],
    ['/contact?name=名', 200, 'Contact'],
    ['/items/1?q=a%20b', 200, 'Item list 1'],
    ['/items/1?q=a+b', 200, 'Item list 1'],
    ['/items/%31', 200, 'Item list 1'],
    ['/%61bout', 200, 'About'],
    ['/%D1%88%D0%B5%D0%BB%D0%BB%D1%8B', 404, '404: This page could not be found.'],
    ['/this-is/100%25%20true', 404, '404: This page could not be found.'],
    ['/items/1%2F2', 404, '404: This page could not be found.'],
  ]
  for (const [url, status, heading] of cases) {
    const html = await app.inject(url)
    t.equal(html.statusCode, status, url)
    t.match(mainText(html.body), heading, `${url}: <main> holds the page`)
    const data = await app.inject(`/_data${url}`)
    t.equal(data.statusCode, status, `${url}: page data has the same status`)
    t.equal(data.json().kind, status === 200 ? 'page' : 'not-found', `${url}: and the same kind`)
  }
  const items = await app.inject('/items/%31')
  t.match(items.body, '"params":{"id":"1"}', 'the params are decoded once')
})

t.test('a malformed URL is refused with 400 in the form of its surface', async (t) => {
  const { app, build } = await createTestApp(t)
  for (const url of ['/items/%E0%A4%A', '/%not-valid', '/99%', '/a/%C0%AF']) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 400, url)
    t.equal(res.headers['content-type'], 'text/html; charset=utf-8', `${url}: an HTML page`)
    t.match(res.body, '<h1>400</h1><p>The address is malformed: a path starts with / and its percent-encoding is valid UTF-8.</p>')
    t.match(res.body, `<link rel="stylesheet" href="${build.manifest.css[0]}">`, 'in the app stylesheet')
    t.notMatch(res.body, /<script/, 'no script')
    assertAppAnswer(t, res.headers, res.body, url, url.slice(1))
  }
  const api = await app.inject('/api/%E0%A4%A')
  t.equal(api.statusCode, 400)
  t.match(api.headers['content-type'], /^application\/json/)
  t.same(api.json(), {
    error: {
      code: 'APP_ERR_BAD_URL',
      message: 'The address is malformed: a path starts with / and its percent-encoding is valid UTF-8.',
      requestId: api.headers['x-request-id'],
    },
  })
  assertAppAnswer(t, api.headers, api.body, '/api', '%E0')

  const data = await app.inject('/_data/items/%E0%A4%A')
  t.equal(data.statusCode, 400)
  t.same(data.json(), {
    kind: 'error',
    status: 400,
    message: 'The address is malformed: a path starts with / and its percent-encoding is valid UTF-8.',
    buildId: build.manifest.buildId,
  })
  assertAppAnswer(t, data.headers, data.body, '/_data', '%E0')

  const post = await app.inject({ method: 'POST', url: '/contact/%E0', headers: { origin: 'http://localhost:80' }, payload: 'x=1' })
  t.equal(post.statusCode, 400, 'a form post to a malformed URL')
})

t.test('bodies Fastify refuses before a handler runs are refused the app way', async (t) => {
  const { app } = await createTestApp(t, 'production', { apiRoutes: [fixtureApiRoutes] })
  const json = { 'content-type': 'application/json' }
  const cases: Array<[label: string, request: InjectOptions, status: number, code: string]> = [
    ['bad JSON', { method: 'POST', url: '/api/echo', headers: json, payload: '{"count":' }, 400, 'APP_ERR_BAD_JSON'],
    ['empty JSON', { method: 'POST', url: '/api/echo', headers: json, payload: '' }, 400, 'APP_ERR_BAD_JSON'],
    [
      'wrong type',
      { method: 'POST', url: '/api/echo', headers: { 'content-type': 'application/xml' }, payload: '<x/>' },
      415,
      'APP_ERR_UNSUPPORTED_MEDIA_TYPE',
    ],
    [
      'too large',
      { method: 'POST', url: '/api/echo', headers: json, payload: `{"count":1,"pad":"${'x'.repeat(1_100_000)}"}` },
      413,
      'APP_ERR_BODY_TOO_LARGE',
    ],
  ]
  for (const [label, request, status, code] of cases) {
    const res = await app.inject(request)
    t.equal(res.statusCode, status, label)
    const { error } = res.json()
    t.equal(error.code, code, label)
    t.equal(error.requestId, res.headers['x-request-id'], `${label}: the request id`)
    t.notMatch(error.message, /FST_|\/api\/echo/, `${label}: our words`)
    assertAppAnswer(t, res.headers, res.body, label)
  }
})

t.test('no redirect leaves the site', async (t) => {
  const { app, origin } = await listenTestApp(t)
  const shapes = [
    '/\\evil.example/',
    '/\\/evil.example/',
    '/%5Cevil.example/',
    '//evil.example/',
    '///evil.example/',
    '/%2F%2Fevil.example/',
    '/%2F/evil.example/',
    '/%09/evil.example/',
    '/%0A/evil.example/',
    '/%5C%5Cevil.example/',
    '/./\\evil.example/',
  ]
  for (const shape of shapes) {
    const html = await app.inject(shape)
    const location = String(html.headers.location ?? '')
    if (html.statusCode >= 300 && html.statusCode < 400) {
      t.ok(isSameSitePath(location), `${shape} -> ${location}`)
      t.notOk(location.includes('\\'), `${shape}: no backslash`)
      t.equal(new URL(location, 'http://site.example/').host, 'site.example', `${shape}: a browser stays on the site`)
    }
    const data = await app.inject(`/_data${shape}`)
    if (data.json().kind === 'redirect') {
      const target = data.json().location
      t.ok(isSameSitePath(target), `/_data${shape} -> ${target}`)
      t.equal(new URL(target, 'http://site.example/').host, 'site.example', `/_data${shape}: stays on the site`)
    }
  }
  // Dot segments as a client sends them raw (app.inject would resolve them first).
  const dotted: Array<[raw: string, to: string]> = [
    ['/items/../about', '/about'],
    ['/%2E%2e/about', '/about'],
    ['/./%5Cevil.example/', '/%5Cevil.example'],
    ['/a/..//evil.example', '/evil.example'],
  ]
  for (const [raw, to] of dotted) {
    const res = await rawRequest(origin, `GET ${raw} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`)
    t.equal(res.status, 308, raw)
    t.equal(res.headers.location, to, raw)
    const data = await rawRequest(origin, `GET /_data${raw} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`)
    t.same(JSON.parse(data.body).location, to, `/_data${raw}`)
  }
  // The absolute form a client sends to what it takes for a proxy: the same pages.
  const absolute = await rawRequest(origin, 'GET http://localhost/about HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')
  t.equal(absolute.status, 200, 'GET http://localhost/about')
  t.match(absolute.body, '<h1>About</h1>')
  const absoluteData = await rawRequest(origin, 'GET http://localhost/_data/about HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')
  t.equal(JSON.parse(absoluteData.body).routeId, 'about', 'and its page data')
  // Raw tabs and newlines never reach routing: Node refuses the request line.
  for (const raw of ['/\t/evil.example/', '/\\\t/evil.example/']) {
    const res = await rawRequest(origin, `GET ${raw} HTTP/1.1\r\nHost: localhost\r\n\r\n`)
    t.equal(res.status, 400, JSON.stringify(raw))
    t.equal(res.headers.location, undefined)
  }
})

t.test('a method an address does not take is a 405 with Allow, in the form of its surface', async (t) => {
  const { app } = await createTestApp(t)
  const sameOrigin = { origin: 'http://localhost:80', 'content-type': 'application/x-www-form-urlencoded' }
  const trace = await app.inject({ method: 'TRACE' as InjectOptions['method'], url: '/about?q=%3Cimg%20src%3Dx%3E' })
  t.equal(trace.statusCode, 405, 'TRACE on a page')
  t.equal(trace.headers.allow, 'GET, HEAD, POST')
  t.equal(trace.headers['content-type'], 'text/html; charset=utf-8')
  t.match(trace.body, '<p>This page does not take TRACE requests (it allows GET, HEAD, POST).</p>')
  assertAppAnswer(t, trace.headers, trace.body, 'TRACE', 'img')
  for (const method of ['PROPFIND', 'MKCOL', 'LOCK'] as const) {
    const res = await app.inject({ method: method as InjectOptions['method'], url: '/no/such/page' })
    t.equal(res.statusCode, 404, `${method} where there is no page`)
    t.match(res.body, 'This page could not be found.')
    assertAppAnswer(t, res.headers, res.body, method, 'such')
  }
  const dataPost = await app.inject({ method: 'POST', url: '/_data/about', headers: sameOrigin, payload: '_action=theme&theme=dark' })
  t.equal(dataPost.statusCode, 405, 'a form post to page data runs no action')
  t.equal(dataPost.headers.allow, 'GET, HEAD')
  t.equal(dataPost.headers['set-cookie'], undefined, 'and sets no theme')
  t.same(dataPost.json(), {
    kind: 'error',
    status: 405,
    message: 'Page data is only read: POST is not taken here (it allows GET, HEAD).',
    buildId: dataPost.json().buildId,
  })
  const dataOptions = await app.inject({ method: 'OPTIONS', url: '/_data/about' })
  t.equal(dataOptions.statusCode, 204)
  t.equal(dataOptions.headers.allow, 'GET, HEAD')
  const assetPost = await app.inject({ method: 'POST', url: '/assets/entry.js', headers: sameOrigin, payload: '_action=theme&theme=dark' })
  t.equal(assetPost.statusCode, 405, 'nor does one to an asset')
  t.equal(assetPost.headers['set-cookie'], undefined)
  t.equal(assetPost.headers['content-type'], 'text/plain; charset=utf-8')
  t.equal(assetPost.body, 'Assets are only read: POST is not taken here (it allows GET, HEAD).')
  const assetPut = await app.inject({ method: 'PUT', url: '/assets/entry.js', headers: { 'content-type': 'text/xml' }, payload: '<a/>' })
  t.equal(assetPut.statusCode, 405, 'whatever the body: refused before it is read')
  // A body Fastify has a parser for (JSON, text) is not read first, even when broken or empty.
  for (const [method, url] of [
    ['PUT', '/about'],
    ['DELETE', '/assets/entry.js'],
    ['PATCH', '/_data/about'],
    ['PUT', '/monitoring'],
  ] as const) {
    for (const [type, payload] of [
      ['application/json', '{'],
      ['application/json', ''],
      ['text/plain', 'x'],
    ]) {
      const res = await app.inject({ method, url, headers: { 'content-type': type }, payload })
      t.equal(res.statusCode, 405, `${method} ${url} with ${type} ${JSON.stringify(payload)}: refused before the body is read`)
    }
  }
  for (const url of ['/assets', '/_data']) {
    const bare = await app.inject({ method: 'POST', url, headers: sameOrigin, payload: '_action=theme&theme=dark' })
    t.equal(bare.statusCode, 405, `a form post to ${url} itself runs no action`)
    t.equal(bare.headers['set-cookie'], undefined, `${url}: no theme set`)
  }
  const tunnel = await app.inject({ method: 'TRACE' as InjectOptions['method'], url: '/monitoring' })
  t.equal(tunnel.statusCode, 405)
  t.equal(tunnel.headers.allow, 'POST')
  const tunnelPut = await app.inject({ method: 'PUT', url: '/monitoring', payload: 'x' })
  t.equal(tunnelPut.statusCode, 405)
  t.equal(tunnelPut.headers.allow, 'POST')
  t.equal(tunnelPut.body, 'The monitoring tunnel only takes POST.')
  const tunnelOptions = await app.inject({ method: 'OPTIONS', url: '/monitoring' })
  t.equal(tunnelOptions.statusCode, 204, 'OPTIONS on the tunnel: 204 with Allow, like every surface')
  t.equal(tunnelOptions.headers.allow, 'POST')
  const get = await app.inject({ method: 'GET', url: '/api/nope' })
  const head = await app.inject({ method: 'HEAD', url: '/api/nope' })
  t.equal(head.headers['content-length'], String(Buffer.byteLength(get.body)), "HEAD's Content-Length is its GET's")
})

t.test('small edges: /assets/ is a 404, a method an /api route does not take is a 405 whatever its body', async (t) => {
  const { app } = await createTestApp(t)
  for (const url of ['/assets/', '/assets//', '/assets/nope.js']) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 404, url)
    t.equal(res.headers['content-type'], 'text/plain; charset=utf-8', url)
  }
  t.equal((await app.inject('/assets')).statusCode, 404, '/assets itself is no page either')
  for (const type of ['application/x-www-form-urlencoded', 'text/xml', 'multipart/form-data; boundary=x', 'application/json']) {
    const res = await app.inject({
      method: 'POST',
      url: '/api/health',
      headers: { 'content-type': type },
      payload: type === 'application/json' ? '{' : 'a=1',
    })
    t.equal(res.statusCode, 405, type)
    t.equal(res.json().error.code, 'APP_ERR_METHOD_NOT_ALLOWED', type)
  }
})
