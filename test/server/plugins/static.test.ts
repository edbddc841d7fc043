import { readdirSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { createTestApp } from '../../helpers/app.js'

t.test('hashed assets', async (t) => {
  // The application as deployed: the tests' own builds have no source maps.
  const { app, build } = await createTestApp(t, 'deployed')

  t.test('the entry script is served immutable for a year', async (t) => {
    const res = await app.inject(build.manifest.entry.file)
    t.equal(res.statusCode, 200)
    t.match(res.headers['content-type'], /^(text|application)\/javascript/)
    t.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable')
    t.match(res.body, /hydrateRoot|createRoot|__page_data/, 'it is the client bundle')
  })

  t.test('route chunks and the stylesheet are served immutable too', async (t) => {
    for (const file of [build.manifest.routes.items!.file, build.manifest.css[0]!]) {
      const res = await app.inject(file)
      t.equal(res.statusCode, 200, file)
      t.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable', file)
    }
  })

  t.test('an unknown asset is a plain 404, never the HTML page', async (t) => {
    for (const url of ['/assets/nope-ABCDEF.js', '/assets/chunk-nope.css']) {
      const res = await app.inject(url)
      t.equal(res.statusCode, 404, url)
      t.match(res.headers['content-type'], /^text\/plain/, url)
      t.notMatch(res.body, '<html', url)
    }
  })

  t.test('paths that climb out of the assets folder never reach the build files', async (t) => {
    for (const url of ['/assets/../manifest.json', '/assets/%2e%2e/manifest.json', '/assets/..%2fmanifest.json']) {
      const res = await app.inject(url)
      t.ok(res.statusCode === 403 || res.statusCode === 404, `${url} refused (${res.statusCode})`)
      t.notMatch(res.body, '"routes"', `${url} does not leak the manifest`)
    }
  })

  t.test("what the file server refuses is said in the app's words, never cached", async (t) => {
    const cases: Array<[url: string, status: number, message: string]> = [
      ['/assets/..%2fmanifest.json', 403, 'An asset path cannot step out of the assets folder (..) or name a dotfile.'],
      ['/assets/.env', 403, 'An asset path cannot step out of the assets folder (..) or name a dotfile.'],
      ['/assets/a%00b.js', 400, 'An asset path cannot contain a NUL byte (%00).'],
    ]
    for (const [url, status, message] of cases) {
      const res = await app.inject(url)
      t.equal(res.statusCode, status, url)
      t.match(res.headers['content-type'], /^text\/plain/, url)
      t.equal(res.body, message, url)
      t.equal(res.headers['cache-control'], 'private, no-store', `${url}: never cached`)
    }
  })

  t.test('a range past the end is a 416 that gives the length (Content-Range: bytes */length); one inside is a 206', async (t) => {
    const file = build.manifest.entry.file
    const whole = await app.inject(file)
    const length = whole.rawPayload.length
    const past = await app.inject({ url: file, headers: { range: `bytes=${length + 10}-` } })
    t.equal(past.statusCode, 416)
    t.equal(past.headers['content-range'], `bytes */${length}`)
    t.equal(past.body, 'The requested range is malformed or starts past the end of the asset (its length is in Content-Range).')
    for (const malformed of ['bytes=abc', 'bytes=5-2']) {
      const res = await app.inject({ url: file, headers: { range: malformed } })
      t.equal(res.statusCode, 416, `${malformed}: 416, as nginx answers it`)
      t.match(res.body, /malformed/, `${malformed}: the message does not claim it starts past the end`)
    }
    const part = await app.inject({ url: file, headers: { range: 'bytes=0-9' } })
    t.equal(part.statusCode, 206)
    t.equal(part.headers['content-range'], `bytes 0-9/${length}`)
    t.equal(part.rawPayload.toString(), whole.rawPayload.subarray(0, 10).toString())
    // If-Range matches only a strong tag: with a weak one (ours are), the whole file.
    const weak = await app.inject({ url: file, headers: { range: 'bytes=0-9', 'if-range': String(whole.headers.etag) } })
    t.match(String(whole.headers.etag), /^W\//, "the asset's tag is weak")
    t.equal(weak.statusCode, 200, 'If-Range with a weak tag: the whole file')
    t.equal(weak.rawPayload.length, length)
    const dated = await app.inject({ url: file, headers: { range: 'bytes=0-9', 'if-range': 'Tue, 24 Nov 2026 10:00:00 GMT' } })
    t.equal(dated.statusCode, 200, 'If-Range with a date: assets have no Last-Modified, so the whole file')
  })

  t.test('source maps are built but not served', async (t) => {
    const maps = readdirSync(path.join(build.clientDir, 'assets')).filter((f) => f.endsWith('.map'))
    t.ok(maps.length > 0, 'the build wrote source maps')
    const res = await app.inject(`/assets/${maps[0]}`)
    t.equal(res.statusCode, 404)
  })

  t.test('the manifest is not served', async (t) => {
    t.equal((await app.inject('/manifest.json')).statusCode, 404)
    t.equal((await app.inject('/assets/manifest.json')).statusCode, 404)
  })
})
