/**
 * Compression as a client sees it: assets as the build compressed them, static pages
 * compressed once, dynamic HTML and JSON per answer, streamed pages as they stream (the
 * shell still first), each with `Vary`; nothing with COMPRESSION=off.
 */
import { request } from 'node:http'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import zlib from 'node:zlib'
import t from 'tap'
import { negotiateEncoding } from '../../server/framework/compression.js'
import { createTestApp, listenTestApp } from '../helpers/app.js'
import { getStreamed } from '../helpers/streamed-get.js'
import { waitUntil } from '../helpers/wait.js'
import { streamGate } from '../fixtures/app/stream-gate.js'

const decode = (encoding: unknown, body: Buffer) =>
  encoding === 'br' ? zlib.brotliDecompressSync(body).toString() : encoding === 'gzip' ? zlib.gunzipSync(body).toString() : body.toString()

t.test('the encoding a client gets from its Accept-Encoding', async (t) => {
  const cases: Array<[string | undefined, string | undefined]> = [
    [undefined, undefined],
    ['', undefined],
    ['gzip, deflate, br', 'br'],
    ['gzip', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['BR', 'br'],
    ['x-gzip', 'gzip'],
    ['*', 'br'],
    // q=0 refuses a coding, and `*` weighs only the codings not listed (RFC 9110, 12.5.3).
    ['br;q=0, gzip;q=0, *', undefined],
    ['gzip;q=0, *', 'br'],
    ['br;q=0, *;q=0.5', 'gzip'],
    ['*;q=0', undefined],
    ['br;q=0.5, gzip', 'gzip'],
    ['gzip;q=oops, br;q=0.2', 'br'],
    ['identity', undefined],
    ['deflate', undefined],
    [';;,,,', undefined],
  ]
  for (const [header, expected] of cases) t.equal(negotiateEncoding(header), expected, JSON.stringify(header))
})

t.test('a page the app compresses and one @fastify/compress compresses get the same encoding', async (t) => {
  const { app } = await createTestApp(t)
  const headers = [
    'gzip, deflate, br',
    'x-gzip',
    '*',
    'br;q=0.1, gzip;q=1',
    'gzip;q=0, br',
    'identity',
    'deflate',
    'br;q=0, gzip;q=0',
    'br;q=0, gzip;q=0, *',
    'gzip;q=0, *',
  ]
  for (const acceptEncoding of headers) {
    const staticPage = await app.inject({ url: '/about', headers: { 'accept-encoding': acceptEncoding } })
    const dynamicPage = await app.inject({ url: '/items/7', headers: { 'accept-encoding': acceptEncoding } })
    const chosen = negotiateEncoding(acceptEncoding)
    t.equal(dynamicPage.headers['content-encoding'], chosen, `${acceptEncoding}: ${chosen ?? 'none'} for a page compressed per answer`)
    t.equal(staticPage.headers['content-encoding'], chosen, `${acceptEncoding}: and for one compressed once`)
    t.notMatch(String(staticPage.headers.vary), /accept-encoding.*accept-encoding/i, `${acceptEncoding}: Vary names it once`)
  }
})

t.test('compression on (the default)', async (t) => {
  // The application as deployed: its assets' .br and .gz are the build's (the tests' own builds have none).
  const { app, build } = await createTestApp(t, 'deployed')
  const get = (url: string, encoding?: string, headers: Record<string, string> = {}) =>
    app.inject({ url, headers: { ...(encoding ? { 'accept-encoding': encoding } : {}), ...headers } })

  t.test('a static page: compressed once, the same bytes each time, per theme and encoding', async (t) => {
    const plain = await get('/about')
    t.equal(plain.headers['content-encoding'], undefined, 'a client that asks for none gets none')
    const br = await get('/about', 'br, gzip')
    t.equal(br.headers['content-encoding'], 'br')
    t.equal(br.headers.vary, 'accept-encoding, cookie')
    t.equal(decode('br', br.rawPayload), plain.body, 'the same document')
    t.ok(br.rawPayload.length < plain.body.length / 2.5, `${br.rawPayload.length} bytes instead of ${plain.body.length}`)
    t.same((await get('/about', 'br')).rawPayload, br.rawPayload, 'the same bytes again')
    const gzip = await get('/about', 'gzip')
    t.equal(gzip.headers['content-encoding'], 'gzip')
    t.equal(decode('gzip', gzip.rawPayload), plain.body)
    const etags = new Set([plain, br, gzip].map((res) => res.headers.etag))
    t.equal(etags.size, 3, 'each encoding is a representation of its own')
    t.equal((await get('/about', 'br', { 'if-none-match': String(br.headers.etag) })).statusCode, 304)
    const dark = await get('/about', 'br', { cookie: 'theme=dark' })
    t.match(decode('br', dark.rawPayload), /^<!DOCTYPE html><html lang="en" data-theme="dark">/)
  })

  t.test('dynamic HTML and page data: compressed per answer', async (t) => {
    for (const url of ['/items/7', '/_data/items/7', '/contact']) {
      const res = await get(url, 'gzip, deflate, br')
      t.equal(res.headers['content-encoding'], 'br', url)
      t.match(String(res.headers.vary), /accept-encoding/, `${url}: Vary`)
      t.match(decode('br', res.rawPayload), url.startsWith('/_data') ? '"title":"Item list 7"' : '</html>')
    }
    const small = await get('/api/health', 'br')
    t.equal(small.headers['content-encoding'], undefined, 'a few bytes are sent as they are')
  })

  t.test('assets: the files the build compressed, as they are', async (t) => {
    const entry = build.manifest.entry.file
    const raw = await readFile(path.join(build.clientDir, entry))
    for (const encoding of ['br', 'gzip'] as const) {
      const res = await get(entry, encoding)
      t.equal(res.statusCode, 200)
      t.equal(res.headers['content-encoding'], encoding)
      t.equal(res.headers.vary, 'Accept-Encoding')
      t.match(res.headers['content-type'], /^application\/javascript/)
      t.equal(decode(encoding, res.rawPayload), raw.toString(), `${encoding}: the same file`)
      t.same(res.rawPayload, await readFile(path.join(build.clientDir, `${entry}.${encoding === 'br' ? 'br' : 'gz'}`)), "the build's own bytes")
    }
    // HTTP reads x-gzip as gzip: the build's .gz, never a compression per request.
    for (const acceptEncoding of ['x-gzip', 'X-GZIP;q=0.5, identity;q=0.1', 'br;q=0, *']) {
      const res = await get(entry, acceptEncoding)
      t.equal(res.headers['content-encoding'], 'gzip', acceptEncoding)
      t.same(res.rawPayload, await readFile(path.join(build.clientDir, `${entry}.gz`)), `${acceptEncoding}: the build's .gz`)
    }
    const star = await get(entry, '*')
    t.same(star.rawPayload, await readFile(path.join(build.clientDir, `${entry}.br`)), '*: any coding, so the preferred one, the .br')
    const refused = await get(entry, 'br;q=0, gzip;q=0, *')
    t.equal(refused.headers['content-encoding'], undefined, 'both refused by name: the file as it is, whatever * says')
    t.equal(refused.rawPayload.length, raw.length)
    const identity = await get(entry)
    t.equal(identity.headers['content-encoding'], undefined)
    t.equal(identity.rawPayload.length, raw.length)
    t.equal((await get(`${entry}.br`)).statusCode, 404, 'the compressed files are not assets of their own')
  })
})

t.test('a streamed page is compressed as it streams: the shell still comes first', async (t) => {
  streamGate.reset()
  const { origin } = await listenTestApp(t, 'fixture')
  const page = getStreamed(`${origin}/streamed`, {}, { brotli: true })
  await waitUntil(() => page.text().includes('<h1>Streamed</h1>'), 'the shell arrived, decompressed')
  t.equal(page.headers()['content-encoding'], 'br')
  t.notMatch(page.text(), 'Arrived after the shell', 'before the late part')
  streamGate.open()
  await page.done
  t.match(page.text(), '<p id="late">Arrived after the shell</p>')
  t.ok(page.text().endsWith('</div></body></html>'))
})

t.test('COMPRESSION=off: everything as it is, for a proxy in front to compress', async (t) => {
  const { app, build } = await createTestApp(t, 'deployed', { config: { compression: false } })
  for (const url of ['/about', '/items/7', '/_data/items/7', build.manifest.entry.file]) {
    const res = await app.inject({ url, headers: { 'accept-encoding': 'br, gzip' } })
    t.equal(res.statusCode, 200, url)
    t.equal(res.headers['content-encoding'], undefined, `${url}: not compressed`)
  }
})

t.test('HEAD answers with the headers its GET would, compressed or not, 304 included, and no body', async (t) => {
  const { origin, app, build } = await listenTestApp(t, 'deployed')
  const send = (method: 'GET' | 'HEAD', url: string, headers: Record<string, string>) =>
    new Promise<{ status: number; headers: Record<string, unknown>; bytes: number }>((resolve, reject) => {
      request(`${origin}${url}`, { method, headers }, (res) => {
        let bytes = 0
        res.on('data', (chunk: Buffer) => (bytes += chunk.length))
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes }))
      })
        .on('error', reject)
        .end()
    })
  // What differs per answer by design: the date, the request id, the nonce in the CSP,
  // and so a document's compressed length by a byte or two; and Transfer-Encoding,
  // which says how a body is framed, where HEAD has none (HTTP lets it go).
  const comparable = (headers: Record<string, unknown>, nonced: boolean) => {
    const { date: _date, 'x-request-id': _id, 'content-security-policy': _csp, 'transfer-encoding': _te, ...rest } = headers
    return nonced ? { ...rest, 'content-length': rest['content-length'] === undefined ? 'none' : 'some' } : rest
  }
  const urls = [
    '/contact',
    '/items/7',
    '/_data/items/7',
    '/nope',
    '/about',
    '/_data/about',
    '/api/health',
    build.manifest.entry.file,
    '/assets/nope.js',
  ]
  for (const acceptEncoding of ['br', 'gzip', 'identity']) {
    for (const url of urls) {
      const get = await send('GET', url, { 'accept-encoding': acceptEncoding })
      const head = await send('HEAD', url, { 'accept-encoding': acceptEncoding })
      const label = `${url} (${acceptEncoding})`
      t.equal(head.status, get.status, `${label}: status`)
      const nonced = /nonce-/.test(String(get.headers['content-security-policy']))
      t.same(comparable(head.headers, nonced), comparable(get.headers, nonced), `${label}: the same headers`)
      t.equal(head.bytes, 0, `${label}: no body`)
    }
  }
  const page = await send('GET', '/about', { 'accept-encoding': 'br' })
  t.equal(page.headers['content-encoding'], 'br', 'the pages above were compressed')
  const notModified = await send('HEAD', '/about', { 'accept-encoding': 'br', 'if-none-match': String(page.headers.etag) })
  t.equal(notModified.status, 304)
  t.equal(notModified.headers['content-length'], undefined, "a 304 says no length (it would have to be the 200's)")
  // Tests that inject requests see what the wire carries: no body.
  const injected = await app.inject({ method: 'HEAD', url: '/contact', headers: { 'accept-encoding': 'br' } })
  t.equal(injected.headers['content-encoding'], 'br')
  t.equal(injected.rawPayload.length, 0, 'inject: no body either')
})
