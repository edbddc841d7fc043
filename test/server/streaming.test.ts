/**
 * Routes with `stream: true`, over a real connection so the order of the bytes is
 * seen: the document head and React's shell first, the part behind Suspense when it is
 * ready, then the closing tags; and a boundary still pending at the render timeout is
 * aborted: the document still ends, and the browser renders that part itself.
 */
import t from 'tap'
import { listenTestApp } from '../helpers/app.js'
import { getStreamed } from '../helpers/streamed-get.js'
import { waitUntil } from '../helpers/wait.js'
import { streamGate } from '../fixtures/app/stream-gate.js'

t.test('a streamed route: shell first, then the late content, then the closing tags', async (t) => {
  streamGate.reset()
  const { origin } = await listenTestApp(t, 'fixture')
  const page = getStreamed(`${origin}/streamed`)
  await waitUntil(() => page.text().includes('<h1>Streamed</h1>'), 'the shell arrived')
  t.equal(page.status(), 200)
  t.equal(page.headers()['cache-control'], 'private, no-store')
  t.match(page.text(), /^<!DOCTYPE html><html lang="en"><head>/, 'the document head came first')
  t.match(page.text(), '<p id="waiting">Waiting for the rest</p>', 'with the fallback in place')
  t.notMatch(page.text(), 'Arrived after the shell', 'the late part has not come yet')
  t.notMatch(page.text(), '</html>', 'nor the end of the document')
  streamGate.open()
  await page.done
  const html = page.text()
  t.match(html, '<p id="late">Arrived after the shell</p>', 'the late part came')
  t.ok(html.indexOf('Arrived after the shell') > html.indexOf('<h1>Streamed</h1>'), 'after the shell')
  t.ok(html.endsWith('</div></body></html>'), 'the closing tags come last')
  const nonce = /'nonce-([^']+)'/.exec(String(page.headers()['content-security-policy']))?.[1]
  for (const tag of html.match(/<script[^>]*>/g) ?? []) t.match(tag, `nonce="${nonce}"`, "React's inline scripts carry the nonce")
})

t.test('a streamed boundary still pending at the timeout is aborted; the document still ends', async (t) => {
  streamGate.reset()
  const { origin, logs } = await listenTestApp(t, 'fixture', { renderTimeoutMs: 300 })
  const page = getStreamed(`${origin}/streamed`)
  await page.done
  const html = page.text()
  t.equal(page.status(), 200, 'the shell was sent: the status stands')
  t.match(html, '<h1>Streamed</h1>')
  t.notMatch(html, 'Arrived after the shell')
  t.match(html, /\$RX\("B:0"/, 'React marks the boundary for the browser to render')
  t.match(html, '<p id="waiting">Waiting for the rest</p>', 'the fallback stays until then')
  t.ok(html.endsWith('</div></body></html>'), 'the document is closed')
  const line = logs.find((l) => l.msg === 'render failed')
  t.match(line?.err?.message, 'Render did not finish within 300 ms', 'the abort is logged with its reason')
  streamGate.open()
})

t.test('a streamed page whose title() throws: the error page, as a page rendered whole gets, not a hung answer', async (t) => {
  streamGate.reset()
  const { origin, logs } = await listenTestApp(t, 'fixture')
  const page = getStreamed(`${origin}/streamed?text=untitled`)
  await page.done
  t.equal(page.status(), 500)
  t.match(page.text(), /^<!DOCTYPE html>/)
  t.notMatch(page.text(), 'This page has no title', 'its message stays on the server')
  t.ok(
    logs.some((line) => (line.err as { message?: string } | undefined)?.message === 'This page has no title'),
    'and is logged',
  )
})
