/**
 * The edges real traffic hits: URLs in every encoding, malformed ones, requests
 * Fastify or Node refuse before routing, redirects that try to leave the site, and
 * Host headers that name someone else. Every refusal is the app's own answer: the
 * surface's form, every security header, the request id, nothing echoed back.
 */
import net from 'node:net'
import t, { type Test } from 'tap'
import type { InjectOptions } from 'fastify'
import { parseHostPattern } from '../../server/framework/allowed-hosts.js'
import { isSameSitePath } from '../../shared/framework/errors.js'
import { createTestApp, listenTestApp } from '../helpers/app.js'
import { rawRequest, rawUntilClosed, rawWithContinue } from '../helpers/raw-http.js'
import { waitUntil } from '../helpers/wait.js'
import { securityHeaderNames } from '../helpers/security-headers.js'
import fixtureApiRoutes from '../fixtures/api.js'

type Headers = Readonly<Record<string, string | string[] | number | undefined>>

/** The security headers of a real page answer: a refusal must carry every one of them. */
const SECURITY_HEADERS = await securityHeaderNames((await createTestApp(t)).app)

function assertAppAnswer(t: Test, headers: Headers, body: string, label: string, echoed?: string) {
  for (const name of SECURITY_HEADERS) t.ok(headers[name], `${label}: ${name}`)
  t.equal(headers['x-content-type-options'], 'nosniff', `${label}: nosniff`)
  t.match(String(headers['x-request-id']), /^[0-9a-f-]{36}$/, `${label}: request id`)
  t.equal(headers['cache-control'], 'private, no-store', `${label}: never cached`)
  t.notMatch(body, /FST_ERR|Bad Request"|statusCode/, `${label}: not Fastify's own answer`)
  if (echoed) t.notOk(body.includes(echoed), `${label}: the URL is not echoed`)
}

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

t.test('requests Node refuses before Fastify sees them: 431 and broken requests, in the app form', async (t) => {
  const { origin } = await listenTestApp(t)
  const big = 'x'.repeat(20_000)
  const page = await rawRequest(origin, `GET /about HTTP/1.1\r\nHost: localhost\r\nX-Big: ${big}\r\n\r\n`)
  t.equal(page.status, 431)
  t.equal(page.headers['content-type'], 'text/html; charset=utf-8')
  t.match(page.body, '<h1>431</h1>')
  t.equal(page.headers.connection, 'close')
  assertAppAnswer(t, page.headers, page.body, '431 page')
  const api = await rawRequest(origin, `GET /api/health HTTP/1.1\r\nHost: localhost\r\nX-Big: ${big}\r\n\r\n`)
  t.equal(api.status, 431)
  t.equal(JSON.parse(api.body).error.code, 'APP_ERR_HEADERS_TOO_LARGE')
  t.equal(JSON.parse(api.body).error.requestId, api.headers['x-request-id'])
  const broken = await rawRequest(origin, 'GET /about\tx HTTP/1.1\r\nHost: localhost\r\n\r\n')
  t.equal(broken.status, 400, 'a control character in the request line')
  assertAppAnswer(t, broken.headers, broken.body, 'broken request line')
  // Node drops a CONNECT unanswered unless something listens for it; nginx answers 400.
  const connect = await rawRequest(origin, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n')
  t.equal(connect.status, 400, 'CONNECT: this server is no proxy')
  t.match(connect.body, 'This server is not a proxy: it does not take CONNECT.')
  t.equal(connect.headers.connection, 'close')
  assertAppAnswer(t, connect.headers, connect.body, 'CONNECT')
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

t.test('Host: one, and one this server answers', async (t) => {
  const { app, origin, logs } = await listenTestApp(t)

  t.test('duplicate or missing Host is a 400 that names the problem', async (t) => {
    const twice = await rawRequest(origin, 'GET /about HTTP/1.1\r\nHost: localhost\r\nHost: evil.example\r\n\r\n')
    t.equal(twice.status, 400)
    t.match(twice.body, 'more than one Host header')
    assertAppAnswer(t, twice.headers, twice.body, 'duplicate host')
    const none = await rawRequest(origin, 'GET /about HTTP/1.1\r\n\r\n')
    t.equal(none.status, 400)
    t.match(none.body, 'no Host header')
    const malformed = await rawRequest(origin, 'GET /about HTTP/1.1\r\nHost: evil.example/x\r\n\r\n')
    t.equal(malformed.status, 400)
    const http10 = await rawRequest(origin, 'GET /about HTTP/1.0\r\n\r\n')
    t.equal(http10.status, 200, 'HTTP/1.0 without Host names no host to be misdirected to')
  })

  t.test('listening on loopback, only the loopback names are answered (DNS rebinding)', async (t) => {
    for (const host of ['localhost', 'localhost:3000', '127.0.0.1', '127.0.0.1:8080', '[::1]', '[::1]:3000', 'LOCALHOST']) {
      t.equal((await app.inject({ url: '/about', headers: { host } })).statusCode, 200, host)
    }
    for (const host of ['evil.example', 'evil.example:3000', 'localhost.evil.example', '127.0.0.2', '0.0.0.0']) {
      const res = await app.inject({ url: '/about', headers: { host } })
      t.equal(res.statusCode, 421, host)
      t.match(res.body, '<h1>421</h1>')
      t.notOk(res.body.includes(host), `${host}: not echoed`)
      assertAppAnswer(t, res.headers, res.body, host)
    }
    const api = await app.inject({ url: '/api/nope', headers: { host: 'evil.example' } })
    t.equal(api.statusCode, 421)
    t.equal(api.json().error.code, 'APP_ERR_MISDIRECTED')
    const data = await app.inject({ url: '/_data/about', headers: { host: 'evil.example' } })
    t.equal(data.json().kind, 'error')
    t.equal(data.json().status, 421)
    t.equal((await app.inject({ url: '/api/health', headers: { host: '10.1.2.3:3000' } })).statusCode, 200, 'probes answer any host')
    t.equal((await app.inject({ url: '/api/ready', headers: { host: '10.1.2.3:3000' } })).statusCode, 200)
    t.equal((await app.inject({ url: '/api/health?probe=1', headers: { host: '10.1.2.3:3000' } })).statusCode, 200, 'with a query too')
  })

  t.test('a form post to a rebound name is refused before the action runs', async (t) => {
    const res = await app.inject({
      method: 'POST',
      url: '/contact',
      headers: { host: 'evil.example', origin: 'http://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      payload: '_action=send&name=Mallory&email=m%40evil.example&message=hi',
    })
    t.equal(res.statusCode, 421)
    t.notOk(
      logs.some((line) => JSON.stringify(line).includes('Mallory')),
      'the action never ran',
    )
  })
})

t.test('what else names a host: an absolute-form target, a port', async (t) => {
  const { origin } = await listenTestApp(t)
  const get = (target: string, host = 'localhost') => rawRequest(origin, `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)
  const elsewhere = await get('http://evil.example/items/7')
  t.equal(elsewhere.status, 421, 'the target names a host this server does not answer, whatever Host says')
  assertAppAnswer(t, elsewhere.headers, elsewhere.body, 'absolute form', 'evil.example')
  t.equal((await get('http://localhost:3000/about', 'evil.example')).status, 200, 'Host is then not asked to be one (RFC 9112, 3.2.2)')
  t.equal((await get('http://localhost:3000/about')).status, 200, 'both answered: the page')
  t.equal((await get('http://localhost:3000?x=1')).status, 200, 'an empty path with a query is /')
  // The target's host is the request's host for what follows too: a form posted with a
  // foreign Host is checked against the target's origin, not the Host's.
  const post = (originHeader: string) =>
    rawRequest(
      origin,
      `POST http://localhost:3000/contact HTTP/1.1\r\nHost: evil.example\r\nOrigin: ${originHeader}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 12\r\nConnection: close\r\n\r\n_action=send`,
    )
  t.equal((await post('http://evil.example')).status, 403, "the Host's origin is not this site's")
  t.equal((await post('http://localhost:3000')).status, 422, "the target's origin is")
  const html = (await get('http://localhost:3000/about')).body
  const script = /<script type="module" src="([^"]+)"/.exec(html)![1]!
  const asset = await get(`http://localhost:3000${script}`)
  t.equal(asset.status, 200, 'and its assets load in the absolute form too')
  t.match(asset.headers['content-type'], /javascript/)
  const malformed = await get('http://-evil-/about')
  t.equal(malformed.status, 400)
  t.match(malformed.body, 'The host in the request target is not a host name.')
  const port = await get('/about', 'localhost:99999')
  t.equal(port.status, 400, 'a port past 65535 names no host')
  t.match(port.body, 'The Host header is not a host name.')
})

t.test('Expect: 100-continue is met; any other expectation is a 417 in the app form, after the Host check', async (t) => {
  const { origin } = await listenTestApp(t)
  const send = (expect: string, host = 'localhost') =>
    rawRequest(origin, `GET /about HTTP/1.1\r\nHost: ${host}\r\nExpect: ${expect}\r\nConnection: close\r\n\r\n`)
  const other = await send('fries-with-that')
  t.equal(other.status, 417)
  t.match(other.body, '<p>This server meets no expectation but Expect: 100-continue.</p>')
  assertAppAnswer(t, other.headers, other.body, 'expect', 'fries')
  t.equal((await send('fries-with-that', 'evil.example')).status, 421, 'a host this server does not answer is refused first')
  const http10 = await rawRequest(origin, 'GET /about HTTP/1.0\r\nExpect: fries-with-that\r\n\r\n')
  t.equal(http10.status, 200, 'HTTP/1.0 has no expectations: ignored')
})

t.test('Expect: 100-continue is met when the body is read: a request refused before then gets its answer and sends no body', async (t) => {
  const { origin } = await listenTestApp(t)
  const body = '_action=send&name=Ada&email=ada%40example.com&message=Hello%20there'
  const head = (host: string, from: string, length = body.length) =>
    `POST /contact HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${from}\r\nContent-Type: application/x-www-form-urlencoded\r\n` +
    `Content-Length: ${length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`
  const accepted = await rawWithContinue(origin, head('localhost', 'http://localhost:80'), body)
  t.ok(accepted.bodySent, 'a request the app takes: 100 Continue, and the body is sent')
  t.match(accepted.answer, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 303 See Other\r\n/, 'then its final answer')
  const refused: Array<[label: string, request: string, status: string]> = [
    ['a host this server does not answer', head('evil.example', 'http://evil.example'), '421 Misdirected Request'],
    ['a cross-origin form post', head('localhost', 'http://evil.example'), '403 Forbidden'],
    ['a Content-Length over the limit', head('localhost', 'http://localhost:80', 5 * 1024 * 1024), '413 Payload Too Large'],
    [
      'a method the page does not take',
      head('localhost', 'http://localhost:80').replace('POST', 'PUT').replace('x-www-form-urlencoded', 'json'),
      '405 Method Not Allowed',
    ],
  ]
  for (const [label, request, status] of refused) {
    const { answer, bodySent } = await rawWithContinue(origin, request, body)
    t.notOk(bodySent, `${label}: no 100 Continue, so no body`)
    t.match(answer, new RegExp(`^HTTP/1\\.1 ${status}\\r\\n`), `${label}: the refusal is the first answer`)
  }
})

t.test('bytes that are no request, after one that is: that one is answered whole, then the connection ends', async (t) => {
  const { origin } = await listenTestApp(t)
  const afterClose = await rawUntilClosed(
    origin,
    'GET /about HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\nGET /items/7 HTTP/1.1\r\nHost: localhost\r\n\r\n',
  )
  t.match(afterClose, /^HTTP\/1\.1 200 OK\r\n/, 'the first answer is the page')
  t.match(afterClose, '<h1>About</h1>')
  t.equal(afterClose.match(/HTTP\/1\.1 \d{3}/g)?.length, 1, 'and the only answer: nothing for the bytes after Connection: close')
  const garbage = await rawUntilClosed(origin, 'GET /about HTTP/1.1\r\nHost: localhost\r\n\r\nNOT HTTP AT ALL\r\n\r\n')
  t.match(garbage, /^HTTP\/1\.1 200 OK\r\n/, 'a keep-alive request followed by garbage: the page first')
  t.match(garbage, '</html>', 'whole')
  t.notMatch(garbage.slice(0, garbage.indexOf('</html>')), /HTTP\/1\.1 400/, 'no refusal written into it')
})

t.test('a form body cut short: a client still reading gets a 400; either way its connection is closed, none is left open', async (t) => {
  const { app, origin } = await listenTestApp(t)
  const { port } = new URL(origin)
  const start =
    'POST /contact HTTP/1.1\r\nHost: localhost\r\nOrigin: http://localhost:80\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\n_action=send&message=' +
    'a'.repeat(5000)
  const halfClosed = await new Promise<string>((resolve) => {
    const socket = net.connect(Number(port), '127.0.0.1')
    let answer = ''
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')))
    socket.on('close', () => resolve(answer))
    socket.end(start) // the body ends 95,000 bytes early; the client can still read
  })
  t.match(halfClosed, /^HTTP\/1\.1 400 /, 'the client that half-closed is told')
  t.match(halfClosed, '<p>The request ended before its whole body arrived.</p>')
  // Twenty clients that write part of a body and go away.
  for (let i = 0; i < 20; i++) {
    const socket = net.connect(Number(port), '127.0.0.1')
    socket.on('error', () => {})
    socket.write(start, () => socket.destroy())
  }
  let open = -1
  const count = () => app.server.getConnections((_error, n) => (open = n))
  await waitUntil(() => (count(), open === 0), 'every connection is closed on the server side')
  t.equal(open, 0)
  t.equal((await app.inject('/about')).statusCode, 200, 'and the server goes on')
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
    t.match(res.body, 'There is no page at this address.')
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

t.test('ALLOWED_HOSTS: those names, through a trusted proxy too', async (t) => {
  const { app } = await createTestApp(t, 'production', {
    config: {
      allowedHosts: ['shop.example', '.example.org', 'pinned.example:8443', 'secure.example:443', 'plain.example:80'].map((entry) =>
        parseHostPattern(entry)!,
      ),
      trustProxy: ['127.0.0.1'],
    },
  })
  const status = async (headers: Record<string, string>) => (await app.inject({ url: '/about', headers, remoteAddress: '127.0.0.1' })).statusCode
  t.equal(await status({ host: 'shop.example' }), 200)
  t.equal(await status({ host: 'shop.example:8080' }), 200, 'any port when none is named')
  t.equal(await status({ host: 'shop.example.' }), 200, 'a fully qualified name')
  t.equal(await status({ host: 'example.org' }), 200, '.example.org names itself')
  t.equal(await status({ host: 'a.b.example.org' }), 200, 'and its subdomains')
  t.equal(await status({ host: 'pinned.example:8443' }), 200)
  t.equal(await status({ host: 'pinned.example' }), 421, 'a pinned port must match')
  // A browser leaves the scheme's own port out of Host.
  t.equal(await status({ host: 'secure.example', 'x-forwarded-proto': 'https' }), 200, ':443 pinned, Host without a port over https')
  t.equal(await status({ host: 'secure.example' }), 421, '...but not over http')
  t.equal(await status({ host: 'plain.example' }), 200, ':80 pinned, Host without a port over http')
  t.equal(await status({ host: 'plain.example', 'x-forwarded-proto': 'https' }), 421, '...but not over https')
  t.equal(await status({ host: 'localhost' }), 421, 'loopback names only when listed')
  t.equal(await status({ host: 'evil.example' }), 421)
  t.equal(await status({ host: 'notshop.example' }), 421)
  t.equal(await status({ host: '127.0.0.1', 'x-forwarded-host': 'shop.example' }), 200, "the trusted proxy's forwarded host")
  t.equal(await status({ host: 'shop.example', 'x-forwarded-host': 'evil.example' }), 421, 'a forwarded host that is refused')
  // HTTP/1.0 may leave Host out; what a trusted proxy forwards is checked all the same.
  const { origin } = await listenTestApp(t, 'production', {
    config: { allowedHosts: [parseHostPattern('shop.example')!], trustProxy: ['127.0.0.1'] },
  })
  const forwarded = (host: string) => rawRequest(origin, `GET /about HTTP/1.0\r\nX-Forwarded-Host: ${host}\r\n\r\n`)
  t.equal((await forwarded('evil.example')).status, 421, 'HTTP/1.0 without Host: a refused forwarded host')
  t.equal((await forwarded('shop.example')).status, 200, 'HTTP/1.0 without Host: an allowed forwarded host')
  const { app: untrusted } = await createTestApp(t, 'production', { config: { allowedHosts: [parseHostPattern('shop.example')!] } })
  const res = await untrusted.inject({
    url: '/about',
    headers: { host: 'shop.example', 'x-forwarded-host': 'evil.example' },
    remoteAddress: '10.9.9.9',
  })
  t.equal(res.statusCode, 200, 'an untrusted peer cannot forward a host')
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

/**
 * Writes `head`, then body bytes up to `total` as fast as the server takes them, until
 * the server closes the connection or all is sent; the answer read meanwhile.
 */
function sendUntilClosed(origin: string, head: string, total: number): Promise<{ answer: string; sent: number }> {
  const { hostname, port } = new URL(origin)
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname)
    const chunk = Buffer.alloc(64 * 1024, 'a')
    let answer = ''
    let sent = 0
    let closed = false
    socket.on('data', (data) => (answer += data.toString('latin1')))
    socket.on('error', () => {}) // a reset while writing is the server closing
    socket.on('close', () => {
      closed = true
      resolve({ answer, sent })
    })
    const pump = () => {
      while (!closed && sent < total) {
        sent += chunk.length
        if (!socket.write(chunk)) return void socket.once('drain', pump)
      }
      // All sent and the connection still open: it was kept for the next request.
      if (!closed) socket.end()
    }
    socket.write(head, pump)
  })
}

t.test('a request refused before its body is read: the connection closes, the rest of the body is never taken in', async (t) => {
  const { origin } = await listenTestApp(t)
  const total = 64 * 1024 * 1024
  const cases: Array<[label: string, head: string, status: number]> = [
    [
      'a cross-site form post',
      'POST /about HTTP/1.1\r\nHost: localhost\r\nOrigin: http://evil.example\r\nContent-Type: application/x-www-form-urlencoded',
      403,
    ],
    ['a method the page does not take', 'PUT /about HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain', 405],
    ['a form of a type no action reads', 'POST /contact HTTP/1.1\r\nHost: localhost\r\nOrigin: http://localhost:80\r\nContent-Type: text/plain', 415],
  ]
  for (const [label, head, status] of cases) {
    const { answer, sent } = await sendUntilClosed(origin, `${head}\r\nContent-Length: ${total}\r\n\r\n`, total)
    t.match(answer, new RegExp(`^HTTP/1\\.1 ${status} `), `${label}: ${status}`)
    t.match(answer, /\r\nconnection: close\r\n/i, `${label}: Connection: close`)
    t.ok(sent < total, `${label}: closed after ${sent} of ${total} bytes`)
  }
})
