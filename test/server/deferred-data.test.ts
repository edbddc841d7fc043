/**
 * Deferred data over real connections, so the order of the bytes is seen: the fixture's
 * /deferred holds its part behind `partGate` until the test opens it. The document and
 * the page data both answer at once with the part pending and send it when it settles;
 * a failing part is logged and reported once (the real Sentry SDK, to a fake ingest),
 * its message never sent; a part still pending at the render timeout fails the same
 * way; a crawler gets the whole page, a failed part's error in place; the demo's /items/:id/stats streams before its
 * slow statistics.
 */
import * as Sentry from '@sentry/node'
import t from 'tap'
import { sentryNodeOptions } from '../../server/framework/monitoring/sentry-options.js'
import { sentryReporter } from '../../server/framework/monitoring/sentry-reporter.js'
import { parseDsn } from '../../shared/framework/monitoring.js'
import { listenTestApp } from '../helpers/app.js'
import { startFakeIngest } from '../helpers/fake-ingest.js'
import { getStreamed } from '../helpers/streamed-get.js'
import { waitUntil } from '../helpers/wait.js'
import { partGate } from '../fixtures/app/stream-gate.js'

const VALUE_SCRIPT = '"key":"later","value":"Arrived later"'

t.test('the document streams the shell at once and the part when it settles', async (t) => {
  partGate.reset()
  const { origin } = await listenTestApp(t, 'fixture')
  const page = getStreamed(`${origin}/deferred`)
  await waitUntil(() => page.text().includes('<h1>Deferred</h1>'), 'the shell arrived')
  t.equal(page.status(), 200)
  t.equal(page.headers()['x-accel-buffering'], 'no', 'a proxy is told not to buffer it')
  t.match(page.text(), '<p id="part-waiting">Waiting for the part</p>', 'the fallback is in place')
  t.notMatch(page.text(), 'Arrived later', 'the part has not come')
  t.notMatch(page.text(), '</html>')
  t.match(page.text(), /<script type="module" async src="[^"]+" nonce="[^"]+"><\/script>/, "the page's script comes right after the shell, async")
  t.notMatch(page.text().slice(0, page.text().indexOf('</head>')), '<script type="module"', 'not in the head, where it would wait for the end')
  partGate.open()
  await page.done
  const html = page.text()
  t.match(html, '<p id="part">Arrived later</p>', "the part's HTML came")
  t.match(html, VALUE_SCRIPT, 'and its value, for hydration')
  t.ok(html.indexOf(VALUE_SCRIPT) > html.indexOf('<h1>Deferred</h1>'), 'after the shell')
  t.ok(html.endsWith('</div></body></html>'), 'the closing tags come last')
  const nonce = /'nonce-([^']+)'/.exec(String(page.headers()['content-security-policy']))?.[1]
  for (const tag of html.match(/<script[^>]*>/g) ?? []) {
    if (!tag.includes('type="application/json"')) t.match(tag, `nonce="${nonce}"`, 'every script carries the nonce')
  }
})

t.test('the page data streams too: the payload first, the part on a line of its own', async (t) => {
  partGate.reset()
  const { origin } = await listenTestApp(t, 'fixture')
  const data = getStreamed(`${origin}/_data/deferred`, { accept: 'application/json' })
  await waitUntil(() => data.text().includes('\n'), 'the first line arrived')
  t.match(data.headers()['content-type'], 'application/x-ndjson')
  t.equal(data.headers()['cache-control'], 'private, no-store')
  t.equal(data.headers()['x-accel-buffering'], 'no', 'a proxy is told not to buffer it')
  const first = JSON.parse(data.text().split('\n')[0]!)
  t.match(first, { kind: 'page', routeId: 'deferred', data: { text: 'Deferred', later: null }, deferred: [{ key: 'later' }] })
  partGate.open()
  await data.done
  const lines = data.text().trim().split('\n')
  t.equal(lines.length, 2)
  t.same(JSON.parse(lines[1]!), { key: 'later', value: 'Arrived later' })

  // Compressed, each line is flushed as it is written: the payload still comes first.
  partGate.reset()
  const compressed = getStreamed(`${origin}/_data/deferred`, { accept: 'application/json' }, { brotli: true })
  await waitUntil(() => compressed.text().includes('\n'), 'the first line arrived, decompressed')
  t.equal(compressed.headers()['content-encoding'], 'br')
  t.notMatch(compressed.text(), 'Arrived later', 'before the part')
  partGate.open()
  await compressed.done
  t.same(JSON.parse(compressed.text().trim().split('\n')[1]!), { key: 'later', value: 'Arrived later' })
})

t.test('a part is data, never markup: what it holds cannot end its script', async (t) => {
  partGate.reset()
  partGate.open()
  const { origin } = await listenTestApp(t, 'fixture')
  const value = '</script><script>alert(1)</script><!-- \u2028\u2029 "quoted" & <b>'
  const page = getStreamed(`${origin}/deferred?value=${encodeURIComponent(value)}`)
  await page.done
  t.notMatch(page.text(), '<script>alert(1)', 'no script of its own')
  t.notMatch(page.text(), '<b>', 'no element of its own')
  const pushed = /\.push\((\{"key":"later".*?\})\);document\.currentScript/.exec(page.text())?.[1]
  t.same(JSON.parse(pushed ?? 'null'), { key: 'later', value }, 'the browser reads it back as it was')
  const data = getStreamed(`${origin}/_data/deferred?value=${encodeURIComponent(value)}`, { accept: 'application/json' })
  await data.done
  t.same(JSON.parse(data.text().trim().split('\n')[1]!), { key: 'later', value }, 'and from the page data')
})

t.test("a part JSON cannot carry (a BigInt) is that part's failure: the answers end, the server stays up", async (t) => {
  partGate.reset()
  partGate.open()
  const { origin, logs } = await listenTestApp(t, 'fixture')
  const page = getStreamed(`${origin}/deferred?bigint=1`)
  await page.done
  const line = logs.find((l) => l.msg === 'deferred data failed')
  t.match(line, { part: 'later', err: { type: 'TypeError' } }, 'logged as the part failing')
  t.match(page.text(), `"key":"later","error":{"digest":"${String(line?.digest)}"}`)
  t.ok(page.text().endsWith('</div></body></html>'), 'the document ends')
  const data = getStreamed(`${origin}/_data/deferred?bigint=1`, { accept: 'application/json' })
  await data.done
  t.match(JSON.parse(data.text().trim().split('\n')[1]!), { key: 'later', error: { digest: /.+/ } }, 'the page data ends too')
  t.equal((await fetch(`${origin}/deferred`)).status, 200, 'and the server still answers')
})

t.test("a layout's part: the same, named by its layout", async (t) => {
  partGate.reset()
  const { origin } = await listenTestApp(t, 'fixture')
  const page = getStreamed(`${origin}/late-note`)
  await waitUntil(() => page.text().includes('<h1>Late note</h1>'), 'the shell arrived')
  t.match(page.text(), '<p id="note-waiting">Waiting for the note</p>')
  const data = getStreamed(`${origin}/_data/late-note`, { accept: 'application/json' })
  await waitUntil(() => data.text().includes('\n'), 'the first line arrived')
  t.match(JSON.parse(data.text().split('\n')[0]!), { layouts: { late: { note: null } }, deferred: [{ layout: 'late', key: 'note' }] })
  partGate.open()
  await Promise.all([page.done, data.done])
  t.match(page.text(), '<p id="note">A late note</p>')
  t.same(JSON.parse(data.text().trim().split('\n')[1]!), { layout: 'late', key: 'note', value: 'A late note' })
})

t.test('a failing part: logged and reported once, only its digest sent; a part still pending at the timeout fails the same way', async (t) => {
  const ingest = await startFakeIngest(t)
  const dsn = parseDsn(`http://publickey@${new URL(ingest.origin).host}/1`)!
  Sentry.init(sentryNodeOptions({ dsn, allowedDsns: [dsn], environment: 'test', release: undefined, tracesSampleRate: 0, tunnelUpstream: undefined }))
  t.teardown(() => Sentry.close(2_000))
  const { origin, logs } = await listenTestApp(t, 'fixture', { errorReporter: sentryReporter, renderTimeoutMs: 1_500 })

  partGate.reset()
  const page = getStreamed(`${origin}/deferred?fail=1`)
  await waitUntil(() => page.text().includes('<h1>Deferred</h1>'), 'the shell arrived')
  partGate.open()
  await page.done
  const html = page.text()
  const line = logs.find((l) => l.msg === 'deferred data failed')
  const digest = line?.digest as string
  t.match(line, { routeId: 'deferred', part: 'later', err: { message: 'The late part failed' } }, 'one log line, naming the route and the part')
  t.match(html, `"key":"later","error":{"digest":"${digest}"}`, 'the browser gets its digest')
  t.notMatch(html, 'The late part failed', 'never its message')
  t.match(html, /\$RX\(/, 'React leaves the boundary to the browser, which shows the failure')
  t.ok(html.endsWith('</div></body></html>'))
  await ingest.waitFor(() => ingest.items('event').some((item) => item.payload.tags?.digest === digest), 'the report arrived')
  t.equal(logs.filter((l) => l.digest === digest).length, 1, 'logged once (not again by the render)')
  await Sentry.flush(2_000)
  t.equal(ingest.items('event').filter((item) => item.payload.tags?.digest === digest).length, 1, 'reported once')

  partGate.reset()
  const stuck = getStreamed(`${origin}/deferred`)
  await stuck.done
  const late = logs.find((l) => (l.err as { message?: string } | undefined)?.message?.includes('did not arrive within 1500 ms'))
  t.match(late, { msg: 'deferred data failed', part: 'later' }, 'a part pending at the timeout is a failure')
  t.match(stuck.text(), `"key":"later","error":{"digest":"${String(late?.digest)}"}`)
  t.ok(stuck.text().endsWith('</div></body></html>'), 'the document still ends')
  partGate.open()
})

t.test('a crawler gets the whole page, every part in place', async (t) => {
  partGate.reset()
  const { origin, logs } = await listenTestApp(t, 'fixture')
  const page = getStreamed(`${origin}/deferred`, { 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' })
  await waitUntil(() => logs.some((l) => l.msg === 'incoming request' && (l.req as { url?: string } | undefined)?.url === '/deferred'), 'asked')
  t.equal(page.text(), '', 'nothing is sent while the part is pending')
  partGate.open()
  await page.done
  const html = page.text()
  t.match(html, '<p id="part">Arrived later</p>')
  t.notMatch(html, 'Waiting for the part', 'no fallback')
  t.notMatch(html, '$RC(', 'nothing for a script to swap in')
  t.match(html.slice(0, html.indexOf('</head>')), /<script type="module" src=/, "the page's script in the head, as for any page")
})

t.test("a crawler gets a failed part's error in place, not its fallback", async (t) => {
  partGate.reset()
  const { origin, logs } = await listenTestApp(t, 'fixture')
  const page = getStreamed(`${origin}/deferred?fail=1`, { 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' })
  await waitUntil(
    () => logs.some((l) => l.msg === 'incoming request' && (l.req as { url?: string } | undefined)?.url === '/deferred?fail=1'),
    'asked',
  )
  partGate.open()
  await page.done
  const html = page.text()
  const digest = String(logs.find((l) => l.msg === 'deferred data failed')?.digest)
  t.match(html, `<p class="part-error" role="alert">This part of the page could not be loaded.<span class="digest"> Digest: ${digest}</span></p>`)
  t.notMatch(html, 'Waiting for the part', 'no fallback')
  t.notMatch(html, '<template', 'nothing left for a script to render')
  t.notMatch(html, 'The late part failed', 'never its message')
  t.match(html, `"key":"later","error":{"digest":"${digest}"}`, 'its outcome for the browser, which shows the same')
})

t.test("the demo's price statistics: the summary at once, the slow part after", async (t) => {
  const { origin } = await listenTestApp(t, 'production', { config: { demoSlowMs: 60_000 }, renderTimeoutMs: 120_000 })
  const page = getStreamed(`${origin}/items/7/stats`)
  await waitUntil(() => page.text().includes('Counting the slow statistics'), 'the shell arrived')
  t.match(page.text(), /Mean price<\/dt><dd>[\d.]+<\/dd>/, 'the summary is in the first bytes')
  t.notMatch(page.text(), 'Median price', 'the slow part has not come')
  t.notMatch(page.text(), '</html>')
  page.close()

  const quick = await listenTestApp(t, 'production', { config: { demoSlowMs: 0 } })
  const whole = getStreamed(`${quick.origin}/items/7/stats`)
  await whole.done
  t.match(whole.text(), /Median price<\/dt><dd>[\d.]+<\/dd>/, 'the final HTML has it')
  const about = await fetch(`${quick.origin}/about`)
  t.equal(about.headers.get('x-accel-buffering'), null, 'a page sent whole leaves buffering to the proxy')
  await about.arrayBuffer()
})
