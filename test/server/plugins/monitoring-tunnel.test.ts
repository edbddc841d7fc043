import { createServer } from 'node:net'
import { gzipSync } from 'node:zlib'
import t from 'tap'
import { parseDsn, tunnelPathFor, type ParsedDsn } from '../../../shared/framework/monitoring.js'
import { createTestApp } from '../../helpers/app.js'
import { envelopeBytes, startFakeIngest, type FakeIngest } from '../../helpers/fake-ingest.js'

const SAAS = 'https://abc123@o123.ingest.de.sentry.io/456'
const SECOND = 'https://def456@o123.ingest.de.sentry.io/789'
const FOREIGN_PROJECT = 'https://abc123@o123.ingest.de.sentry.io/999'
const FOREIGN_ORG = 'https://abc123@o777.ingest.de.sentry.io/456'
const FOREIGN_HOST = 'https://abc123@o123.ingest.de.evil.example/456'

function dsn(text: string): ParsedDsn {
  return parseDsn(text)!
}

function eventEnvelope(dsnText: string, message = 'boom'): Buffer {
  return envelopeBytes({ dsn: dsnText, sent_at: new Date().toISOString() }, [
    [{ type: 'event' }, JSON.stringify({ event_id: '0'.repeat(32), message })],
  ])
}

async function appWithIngest(t: Parameters<typeof createTestApp>[0], ingest: FakeIngest, extra: Record<string, unknown> = {}) {
  return createTestApp(t, 'production', {
    config: {
      monitoring: {
        dsn: dsn(SAAS),
        allowedDsns: [dsn(SAAS), dsn(SECOND)],
        environment: 'test',
        release: undefined,
        tracesSampleRate: 0,
        tunnelUpstream: ingest.origin,
      },
      ...extra,
    },
    tunnelTimeoutMs: 500,
  })
}

const tunnel = tunnelPathFor(dsn(SAAS))
const post = (url: string, payload: Buffer, headers: Record<string, string> = {}) => ({
  method: 'POST' as const,
  url,
  payload,
  headers: { 'content-type': 'text/plain;charset=UTF-8', ...headers },
})

t.test('the tunnel path names org, project and region', async (t) => {
  t.equal(tunnel, '/monitoring?o=123&p=456&r=de')
  t.equal(tunnelPathFor(dsn('https://k@o9.ingest.sentry.io/1')), '/monitoring?o=9&p=1')
  t.equal(tunnelPathFor(dsn('https://k@sentry.example.com/sentry/5')), '/monitoring?o=0&p=5', 'self-hosted: o=0')
  for (const bad of ['', 'not a dsn', 'ftp://k@h/1', 'https://h/1', 'https://k@h/', 'https://k@h/abc', 'https://k@h/1?x=1']) {
    t.equal(parseDsn(bad), undefined, JSON.stringify(bad))
  }
})

t.test('forwarding', async (t) => {
  const ingest = await startFakeIngest(t)
  const { app } = await appWithIngest(t, ingest)

  t.test('an envelope for the allowed DSN reaches ingest byte for byte, with the client address', async (t) => {
    const body = eventEnvelope(SAAS)
    const res = await app.inject(post(tunnel, body))
    t.equal(res.statusCode, 200)
    const got = ingest.received.at(-1)!
    t.equal(got.path, '/api/456/envelope/')
    t.ok(got.raw.equals(body), 'unchanged bytes')
    t.equal(got.headers['x-sentry-forwarded-for'], '127.0.0.1')
    t.equal(got.headers['content-type'], 'application/x-sentry-envelope')
    t.equal(ingest.items('event').at(-1)?.payload.message, 'boom')
  })

  t.test('a second DSN from SENTRY_ALLOWED_DSNS is forwarded to its own project', async (t) => {
    const res = await app.inject(post(tunnelPathFor(dsn(SECOND)), eventEnvelope(SECOND)))
    t.equal(res.statusCode, 200)
    t.equal(ingest.received.at(-1)!.project, '789')
  })

  t.test('a gzip body is forwarded as gzip, its header read through the compression', async (t) => {
    const body = gzipSync(eventEnvelope(SAAS, 'zipped'))
    const res = await app.inject(post(tunnel, body, { 'content-encoding': 'gzip' }))
    t.equal(res.statusCode, 200)
    const got = ingest.received.at(-1)!
    t.equal(got.headers['content-encoding'], 'gzip')
    t.ok(got.raw.equals(body))
    t.equal(ingest.items('event').at(-1)?.payload.message, 'zipped')
  })

  t.test('content codings are read the way HTTP names them: any case, x-gzip for gzip, identity for none', async (t) => {
    for (const coding of ['GZIP', ' Gzip ', 'x-gzip']) {
      const body = gzipSync(eventEnvelope(SAAS, coding))
      const res = await app.inject(post(tunnel, body, { 'content-encoding': coding }))
      t.equal(res.statusCode, 200, JSON.stringify(coding))
      t.equal(ingest.received.at(-1)!.headers['content-encoding'], 'gzip', `${coding}: forwarded as gzip`)
      t.equal(ingest.items('event').at(-1)?.payload.message, coding)
    }
    const plain = await app.inject(post(tunnel, eventEnvelope(SAAS, 'identity'), { 'content-encoding': 'identity' }))
    t.equal(plain.statusCode, 200, 'identity')
    t.equal(ingest.received.at(-1)!.headers['content-encoding'], undefined, 'forwarded as a plain body')
    t.equal(ingest.items('event').at(-1)?.payload.message, 'identity')
  })

  t.test('a binary item (every byte value) passes untouched', async (t) => {
    const bytes = new Uint8Array(256).map((_, i) => i)
    const body = envelopeBytes({ dsn: SAAS }, [[{ type: 'attachment', filename: 'b.bin' }, bytes]])
    const res = await app.inject(post(tunnel, body, { 'content-type': 'application/x-sentry-envelope' }))
    t.equal(res.statusCode, 200)
    t.ok(ingest.received.at(-1)!.raw.equals(body))
    const [, payload] = ingest.received.at(-1)!.envelope[1][0]!
    t.same(Array.from(payload as Uint8Array), Array.from(bytes))
  })

  t.test('429 from ingest comes back with Retry-After and X-Sentry-Rate-Limits', async (t) => {
    ingest.mode = 'rate-limit'
    t.teardown(() => {
      ingest.mode = 'accept'
    })
    const res = await app.inject(post(tunnel, eventEnvelope(SAAS)))
    t.equal(res.statusCode, 429)
    t.equal(res.headers['retry-after'], '60')
    t.equal(res.headers['x-sentry-rate-limits'], '60:error;transaction:organization')
  })
})

t.test('never an open relay', async (t) => {
  const ingest = await startFakeIngest(t)
  const { app } = await appWithIngest(t, ingest)

  t.test('every malformed query is a 400 naming the parameter', async (t) => {
    const cases: Array<[string, string]> = [
      ['/monitoring', 'o'],
      ['/monitoring?p=456', 'o'],
      ['/monitoring?o=abc&p=456', 'o'],
      ['/monitoring?o=123', 'p'],
      ['/monitoring?o=123&p=4x', 'p'],
      ['/monitoring?o=123&p=456&r=DE', 'r'],
      ['/monitoring?o=123&p=456&r=deu', 'r'],
      ['/monitoring?o=123&p=456&r=', 'r'],
      ['/monitoring?o=123&p=456&host=evil.example', 'only'],
      ['/monitoring?o=123&o=124&p=456', 'o'],
    ]
    for (const [url, parameter] of cases) {
      const res = await app.inject(post(url, eventEnvelope(SAAS)))
      t.equal(res.statusCode, 400, url)
      t.match(res.body, parameter === 'only' ? 'Tunnel URLs take only the parameters o, p and r.' : `Tunnel parameter "${parameter}"`, url)
      t.notMatch(res.body, 'evil.example', `${url}: the query is not quoted back`)
    }
    t.equal(ingest.received.length, 0, 'nothing was forwarded')
  })

  t.test('other methods are 405 with Allow: POST', async (t) => {
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await app.inject({ method, url: tunnel })
      t.equal(res.statusCode, 405, method)
      t.equal(res.headers.allow, 'POST')
    }
  })

  t.test('the tunnel owns its prefix: /monitoring/<anything> is a 404 as its refusals are, neither a page nor a form post', async (t) => {
    const before = ingest.received.length
    for (const [method, url] of [
      ['POST', '/monitoring/api/456/envelope/?o=123&p=456'],
      ['POST', '/monitoring/x'],
      ['GET', '/monitoring/x'],
      ['PUT', '/monitoring/a/b'],
    ] as const) {
      const res = await app.inject({ ...post(url, eventEnvelope(SAAS)), method })
      t.equal(res.statusCode, 404, `${method} ${url}`)
      t.match(res.headers['content-type'], 'text/plain', `${method} ${url}`)
      t.equal(res.body, 'The monitoring tunnel answers at /monitoring only.')
    }
    t.equal(ingest.received.length, before, 'nothing was forwarded')
  })

  t.test('a DSN of another project, org or host is never forwarded', async (t) => {
    for (const foreign of [FOREIGN_PROJECT, FOREIGN_ORG, FOREIGN_HOST]) {
      const viaOwnQuery = await app.inject(post(tunnelPathFor(dsn(foreign)), eventEnvelope(foreign)))
      t.equal(viaOwnQuery.statusCode, 403, `${foreign} with its own query`)
      const viaAllowedQuery = await app.inject(post(tunnel, eventEnvelope(foreign)))
      t.equal(viaAllowedQuery.statusCode, 403, `${foreign} behind an allowed query`)
    }
    t.equal(ingest.received.length, 0)
  })

  t.test('a query and an envelope naming two different allowed DSNs is refused', async (t) => {
    const res = await app.inject(post(tunnel, eventEnvelope(SECOND)))
    t.equal(res.statusCode, 403)
    t.match(res.body, "The envelope's DSN is not the allowed DSN the tunnel URL names.")
    t.equal(ingest.received.length, 0)
  })

  t.test('malformed envelopes are 400s', async (t) => {
    const cases: Array<[string, Buffer, Record<string, string>?]> = [
      ['not JSON', Buffer.from('{nope\n{}\n')],
      ['no DSN', Buffer.from('{"sent_at":"x"}\n{}\n')],
      ['DSN not a string', Buffer.from('{"dsn":42}\n')],
      ['header line over 64 KiB', Buffer.from(`{"dsn":"${SAAS}","pad":"${'x'.repeat(65 * 1024)}"}\n{}\n`)],
      ['empty', Buffer.alloc(0)],
      ['broken gzip', Buffer.from('not gzip at all'), { 'content-encoding': 'gzip' }],
    ]
    for (const [what, body, headers] of cases) {
      const res = await app.inject(post(tunnel, body, headers))
      t.equal(res.statusCode, 400, what)
    }
    const brotli = await app.inject(post(tunnel, eventEnvelope(SAAS), { 'content-encoding': 'br' }))
    t.equal(brotli.statusCode, 415, 'an encoding the tunnel cannot read')
    t.equal(ingest.received.length, 0)
  })

  t.test('a body over the limit is a 413', async (t) => {
    const res = await app.inject(post(tunnel, Buffer.concat([eventEnvelope(SAAS), Buffer.alloc(1024 * 1024)])))
    t.equal(res.statusCode, 413)
  })

  t.test('without SENTRY_DSN the tunnel forwards nothing', async (t) => {
    const { app: bare } = await createTestApp(t)
    const res = await bare.inject(post(tunnel, eventEnvelope(SAAS)))
    t.equal(res.statusCode, 403)
  })
})

t.test('when ingest fails', async (t) => {
  t.test('ingest down: 502, quickly', async (t) => {
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number }
        server.close(() => resolve(port))
      })
    })
    const { app } = await appWithIngest(t, { origin: `http://127.0.0.1:${closed}` } as FakeIngest)
    const started = Date.now()
    const res = await app.inject(post(tunnel, eventEnvelope(SAAS)))
    t.equal(res.statusCode, 502)
    t.ok(Date.now() - started < 500, 'well before the timeout')
  })

  t.test('ingest hanging: 504 at the timeout, and pages are served meanwhile', async (t) => {
    const ingest = await startFakeIngest(t)
    ingest.mode = 'hang'
    const { app } = await appWithIngest(t, ingest)
    const forwarding = app.inject(post(tunnel, eventEnvelope(SAAS)))
    await ingest.waitFor((i) => i.received.length === 1, 'the envelope reached ingest')
    const page = await app.inject('/items/7')
    t.equal(page.statusCode, 200, 'a page while the tunnel waits')
    const res = await forwarding
    t.equal(res.statusCode, 504)
  })
})

t.test('the client address behind a trusted proxy', async (t) => {
  const ingest = await startFakeIngest(t)
  t.test('trusted: the forwarded client address', async (t) => {
    const { app } = await appWithIngest(t, ingest, { trustProxy: ['127.0.0.1'] })
    await app.inject(post(tunnel, eventEnvelope(SAAS), { 'x-forwarded-for': '203.0.113.9' }))
    t.equal(ingest.received.at(-1)!.headers['x-sentry-forwarded-for'], '203.0.113.9')
    await app.inject(post(tunnel, eventEnvelope(SAAS), { 'x-forwarded-for': '203.0.113.9:51234' }))
    t.equal(ingest.received.at(-1)!.headers['x-sentry-forwarded-for'], '203.0.113.9', 'without the port a proxy wrote')
  })
  t.test('untrusted: the peer, whatever the header says', async (t) => {
    const { app } = await appWithIngest(t, ingest)
    await app.inject(post(tunnel, eventEnvelope(SAAS), { 'x-forwarded-for': '203.0.113.9' }))
    t.equal(ingest.received.at(-1)!.headers['x-sentry-forwarded-for'], '127.0.0.1')
  })
})
