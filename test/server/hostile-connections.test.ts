/**
 * The edges real traffic hits on the wire: requests Node refuses before Fastify sees
 * them, Host headers that name someone else (DNS rebinding, absolute-form targets,
 * ALLOWED_HOSTS), Expect, bytes that are no request, bodies cut short or refused before
 * they are read. Every refusal is the app's own answer, and no connection is left open.
 * URLs, bodies and methods: hostile-requests.test.ts.
 */
import net from 'node:net'
import t from 'tap'
import { parseHostPattern } from '../../server/framework/allowed-hosts.js'
import { createTestApp, listenTestApp } from '../helpers/app.js'
import { rawRequest, rawUntilClosed, rawWithContinue } from '../helpers/raw-http.js'
import { waitUntil } from '../helpers/wait.js'
import { appAnswerAsserter } from '../helpers/security-headers.js'

const assertAppAnswer = await appAnswerAsserter((await createTestApp(t)).app)

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
