/**
 * Pages on the test-only application (test/fixtures/app/): the outcomes the product's
 * screens never give (a loader that fails, redirects or refuses; a render that throws
 * or never ends; hostile data), as the server answers them. The product's own pages:
 * pages.test.ts.
 */
import t from 'tap'
import { createTestApp } from '../../helpers/app.js'
import { bootstrapOf } from '../../helpers/page-html.js'
import { HOSTILE_TEXT, SECRET_MESSAGE } from '../../fixtures/app/routes.js'

const SERVER_ERROR_TEXT = 'Application error: a server-side exception has occurred (see the server logs for more information).'

t.test('a render that never finishes is aborted at the timeout: 500 page, logged', async (t) => {
  const { app, logs } = await createTestApp(t, 'fixture', { renderTimeoutMs: 200 })
  const res = await app.inject('/stuck')
  t.equal(res.statusCode, 500)
  t.match(res.body, `<h1>${SERVER_ERROR_TEXT}</h1>`)
  const line = logs.find((l) => l.msg === 'render failed')
  t.match(line?.err?.message, 'Render did not finish within 200 ms')
  t.match(res.body, `Digest: ${line?.digest}`, 'the page shows the digest of the logged failure')
  t.equal(logs.filter((l) => l.msg === 'render failed').length, 1, 'reported once')
  t.equal((await app.inject('/target')).statusCode, 200, 'the server keeps serving')
})

t.test('loader outcomes (fixture routes)', async (t) => {
  const { app, logs } = await createTestApp(t, 'fixture')

  t.test('a failing loader: 500 page with the digest, no message or stack; the log has both', async (t) => {
    const res = await app.inject('/failing')
    t.equal(res.statusCode, 500)
    t.equal(res.headers['cache-control'], 'private, no-store')
    t.match(res.body, `<h1>${SERVER_ERROR_TEXT}</h1>`)
    const digest = /Digest: (?:<!-- -->)?([0-9a-z]+)/.exec(res.body)?.[1]
    t.ok(digest, 'the page shows a digest')
    t.notMatch(res.body, SECRET_MESSAGE, 'no message in the HTML')
    t.notMatch(res.body, /at .*\.ts:\d+/, 'no stack in the HTML')
    t.notMatch(res.body, 'server/pages', 'no file paths in the HTML')
    const line = logs.find((l) => l.msg === 'loader failed' && l.digest === digest)
    t.ok(line, 'the log line has the digest')
    t.equal(line?.level, 50, 'logged as an error')
    t.match(line?.err?.message, SECRET_MESSAGE, 'the log has the message')
    t.match(line?.err?.stack, /fixtures\/app\/server\.ts/, 'the log has the stack')
    t.match(line?.reqId, /^[0-9a-f-]{36}$/, 'the log line carries a request id')
    t.equal(line?.reqId, res.headers['x-request-id'], 'the one the client was given')
    t.equal(line?.routeId, 'failing')
  })

  t.test("a loader's error that carries a statusCode of its own (an upstream API's 401) is still a server error", async (t) => {
    for (const url of ['/failing?upstream=401', '/failing?upstream=404', '/_data/failing?upstream=401']) {
      const res = await app.inject(url)
      t.equal(res.statusCode, 500, `${url}: a 500, not the upstream's status`)
      t.notMatch(res.body, SECRET_MESSAGE, 'no message sent')
      const digest = /Digest: (?:<!-- -->)?([0-9a-z]+)|"digest":"([0-9a-z]+)"/.exec(res.body)
      const line = logs.find((l) => l.msg === 'loader failed' && l.digest === (digest?.[1] ?? digest?.[2]))
      t.equal(line?.level, 50, 'logged as an error with the digest sent')
    }
  })

  t.test('the same failure gives the same digest twice', async (t) => {
    const digests = await Promise.all([1, 2].map(async () => /Digest: (?:<!-- -->)?([0-9a-z]+)/.exec((await app.inject('/failing')).body)?.[1]))
    t.equal(digests[0], digests[1])
  })

  t.test('a failing loader in page data: 500 payload with the digest only', async (t) => {
    const res = await app.inject('/_data/failing')
    t.equal(res.statusCode, 500)
    const body = res.json()
    t.equal(body.kind, 'error')
    t.match(body.digest, /^[0-9a-z]+$/)
    t.notOk(body.message)
    t.notMatch(res.body, SECRET_MESSAGE)
  })

  t.test('a loader redirect answers its status and Location', async (t) => {
    const res = await app.inject('/moved')
    t.equal(res.statusCode, 307)
    t.equal(res.headers.location, '/target')
    const data = await app.inject('/_data/moved')
    t.equal(data.json().kind, 'redirect')
    t.equal(data.json().location, '/target')
  })

  t.test('a loader notFound() and a param failing its check are 404 pages', async (t) => {
    t.equal((await app.inject('/missing/present')).statusCode, 200)
    for (const path of ['/missing/absent', '/missing/NOT-LOWER']) {
      const res = await app.inject(path)
      t.equal(res.statusCode, 404, path)
      t.match(res.body, '404: This page could not be found.')
    }
  })

  t.test('an HttpError meant for the user shows its status and message', async (t) => {
    const res = await app.inject('/forbidden')
    t.equal(res.statusCode, 403)
    t.match(res.body, '<h1>403</h1><p>Members only</p>')
    t.same((await app.inject('/_data/forbidden')).json().message, 'Members only')
  })

  t.test('hostile page data is escaped in the HTML and the bootstrap script', async (t) => {
    const res = await app.inject('/hostile')
    t.equal(res.statusCode, 200)
    t.notMatch(res.body, '<script>alert(1)</script>', 'no script injected')
    const script = /<script type="application\/json"[^>]*>([^]*?)<\/script>/.exec(res.body)?.[1] ?? ''
    t.notMatch(script, /[\u2028\u2029]/, 'no raw U+2028/U+2029 in the script')
    t.notMatch(script, '<', 'no raw < in the script')
    t.match(res.body, '&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;', 'escaped text in the page')
    t.equal(bootstrapOf(res.body).data.text, HOSTILE_TEXT, 'the bootstrap script reads back as the same text')
    t.match(res.body, `<title>Hostile: &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;`)
    const description = /<meta name="description" content="([^"]*)" data-head>/.exec(res.body)?.[1]
    t.equal(
      description,
      '&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; \u2028 \u2029 &lt;!-- &amp; &quot;quoted&quot;',
      'head entries are escaped',
    )
  })

  t.test('a component that throws while rendering on the server: plain 500 page with the digest', async (t) => {
    const res = await app.inject('/render-crash')
    t.equal(res.statusCode, 500)
    t.match(res.body, `<h1>${SERVER_ERROR_TEXT}</h1>`)
    const digest = /Digest: ([0-9a-z]+)/.exec(res.body)?.[1]
    t.ok(digest)
    t.notMatch(res.body, SECRET_MESSAGE)
    t.notMatch(res.body, '<script', 'the fallback page runs no script')
    t.ok(logs.find((l) => l.msg === 'render failed' && l.digest === digest && l.err?.message === SECRET_MESSAGE))
  })
})
