/**
 * Failures counted right on the demo's streamed statistics (`/items/7/stats`): a
 * visitor who leaves is no server error, and a part still pending at the render
 * timeout is one failure, with one log line, one digest and one report.
 */
import net from 'node:net'
import * as Sentry from '@sentry/node'
import t from 'tap'
import { sentryNodeOptions } from '../../server/framework/monitoring/sentry-options.js'
import { sentryReporter } from '../../server/framework/monitoring/sentry-reporter.js'
import { parseDsn } from '../../shared/framework/monitoring.js'
import { listenTestApp } from '../helpers/app.js'
import { startFakeIngest } from '../helpers/fake-ingest.js'
import { getStreamed } from '../helpers/streamed-get.js'
import { waitUntil } from '../helpers/wait.js'

const RENDER_TIMEOUT_MS = 1_000
// The visitor must be gone before the part's deadline: on a machine loaded enough that the
// first bytes take a second to arrive, 1 s would end the page first and the test would see
// a timeout, not a departure.
const LEAVING_RENDER_TIMEOUT_MS = 5_000

t.test('streamed statistics', async (t) => {
  const ingest = await startFakeIngest(t)
  const dsn = parseDsn(`http://publickey@${new URL(ingest.origin).host}/1`)!
  Sentry.init(sentryNodeOptions({ dsn, allowedDsns: [dsn], environment: 'test', release: undefined, tracesSampleRate: 0, tunnelUpstream: undefined }))
  t.teardown(() => Sentry.close(2_000))
  const events = () => ingest.items('event').map((item) => item.payload)

  t.test('a visitor who leaves mid-stream: debug lines, no error line, no report', async (t) => {
    const { origin, logs } = await listenTestApp(t, 'production', {
      errorReporter: sentryReporter,
      config: { demoSlowMs: 60_000, logLevel: 'debug' },
      renderTimeoutMs: LEAVING_RENDER_TIMEOUT_MS,
    })
    const { port } = new URL(origin)
    const socket = net.connect(Number(port), '127.0.0.1')
    let received = ''
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')))
    socket.on('error', () => {})
    socket.write('GET /items/7/stats HTTP/1.1\r\nHost: localhost\r\n\r\n')
    await waitUntil(() => received.includes('Counting the slow statistics'), 'the first bytes arrived', LEAVING_RENDER_TIMEOUT_MS)
    t.notMatch(received, '</html>', 'the page was still streaming')
    socket.destroy()

    await waitUntil(() => logs.some((l) => l.msg === 'client closed the connection before the page was sent'), 'the render was dropped', 60_000)
    // The part's deadline passes after the client left: that is no failure either.
    await waitUntil(() => logs.some((l) => l.msg.startsWith('deferred data dropped')), 'the part was dropped', 60_000)
    for (const line of logs.filter((l) => l.msg.includes('client closed') || l.msg.startsWith('deferred data dropped'))) {
      t.equal(line.level, 20, `${line.msg}: a debug line`)
      t.notOk(line.digest, 'without a digest')
    }
    t.same(
      logs.filter((l) => l.level >= 50).map((l) => l.msg),
      [],
      'no error line',
    )
    await Sentry.flush(2_000)
    t.same(events(), [], 'nothing reported')
  })

  for (const [slowMs, what] of [
    [RENDER_TIMEOUT_MS, 'equal to'],
    [60 * RENDER_TIMEOUT_MS, 'over'],
  ] as const) {
    t.test(`DEMO_SLOW_MS ${what} the render timeout: the part fails, once`, async (t) => {
      const before = events().length
      const { origin, logs } = await listenTestApp(t, 'production', {
        errorReporter: sentryReporter,
        config: { demoSlowMs: slowMs },
        renderTimeoutMs: RENDER_TIMEOUT_MS,
      })
      const page = getStreamed(`${origin}/items/7/stats`)
      await page.done
      const html = page.text()
      t.ok(html.endsWith('</html>'), 'the document ends')
      t.notMatch(html, 'Median price', 'no value, not even one due exactly at the timeout')

      const errorLines = logs.filter((l) => l.level >= 50)
      t.same(
        errorLines.map((l) => l.msg),
        ['deferred data failed'],
        'one error line',
      )
      const digest = errorLines[0]?.digest as string
      t.match(errorLines[0], { part: 'slow', err: { message: `Deferred data "slow" did not arrive within ${RENDER_TIMEOUT_MS} ms` } })
      t.match(html, `"key":"slow","error":{"digest":"${digest}"}`, 'the browser gets its digest')
      const digests = new Set([...html.matchAll(/"digest":"([0-9a-z]+)"|data-dgst="([0-9a-z]+)"/g)].map((m) => m[1] ?? m[2]))
      t.same([...digests], [digest], 'the page carries that one digest')

      // Sentry drops an event identical to the one before it (its Dedupe integration), as
      // the second case's is: the reports are counted on the first.
      if (slowMs !== RENDER_TIMEOUT_MS) return
      await ingest.waitFor(() => events().some((event) => event.tags?.digest === digest), 'the report arrived')
      await Sentry.flush(2_000)
      t.same(
        events()
          .slice(before)
          .map((event) => event.tags?.digest),
        [digest],
        'one report',
      )
    })
  }
})
