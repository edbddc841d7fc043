/**
 * Tracing unset costs nothing: after real requests of every kind, no module of the OpenTelemetry
 * SDK nor the app's tracer was imported, and no trace id was logged. The API package alone is
 * loaded, by prom-client (its exemplars), and stays a no-op without a provider.
 */
import { register } from 'node:module'
import { MessageChannel } from 'node:worker_threads'
import t from 'tap'
import { waitUntil } from '../helpers/wait.js'

const resolved: string[] = []
const { port1, port2 } = new MessageChannel()
port1.on('message', (url: string) => resolved.push(url))
port1.unref()
// Before the app is imported (dynamically, below), so that every module it loads is seen.
register('../helpers/record-resolves.mjs', { parentURL: import.meta.url, data: { port: port2 }, transferList: [port2] })

t.test('without the OpenTelemetry variables, no SDK module is loaded and no trace id logged', async (t) => {
  const { listenTestApp } = await import('../helpers/app.js')
  const { app, origin, logs } = await listenTestApp(t, 'production', { config: { demoSlowMs: 0 } })
  for (const path of ['/items/7', '/items/7/stats', '/_data/items/7', '/about', '/api/health', '/no-such-page']) {
    await (await fetch(origin + path, { redirect: 'manual' })).arrayBuffer()
  }
  // The hooks run on their own thread: their last message may still be on its way.
  // `.ts` under tsx, `.js` as npm test runs it (transpiled: scripts/test-transpile.ts).
  await waitUntil(() => resolved.some((url) => /\/server\/framework\/app\.[jt]s$/.test(url)), 'the app is seen loading')
  t.ok(
    resolved.some((url) => /\/server\/framework\/tracing\/(request-)?tracing\.[jt]s$/.test(url)),
    'the hooks see the app load its modules (the check below could fail)',
  )
  t.same(
    resolved.filter((url) => /\/node_modules\/@opentelemetry\/(?!api\/)/.test(url) || /\/server\/framework\/tracing\/tracer\.[jt]s$/.test(url)),
    [],
    'no OpenTelemetry SDK module, nor the tracer',
  )
  t.equal(app.tracing, undefined)
  t.notOk(
    logs.some((line) => 'trace_id' in line),
    'no trace id in any log line',
  )
})
