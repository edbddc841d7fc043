/**
 * The metrics' own listener (METRICS_PORT): a port the operator keeps inside the cluster, so the
 * public site never shows them. Plain node:http, because it answers one path and must keep
 * answering while the app's Fastify instance sheds load or drains.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import type { Registry } from 'prom-client'
import type { PrometheusMetrics } from './metrics.js'
import { recordRequests } from './record-requests.js'
import { declarePageRouteLabel } from './route-label.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The metrics listener's address once the app is ready; undefined without METRICS_PORT. */
    metricsAddress(): AddressInfo | undefined
  }
}

/** Counts every response, and listens on the metrics port while the app runs (from ready to close). */
export function serveMetrics(app: FastifyInstance, metrics: PrometheusMetrics, where: { readonly host: string; readonly port: number }): void {
  let server: http.Server | undefined
  declarePageRouteLabel(app)
  recordRequests(app, metrics)
  app.decorate('metricsAddress', () => server?.address() as AddressInfo | undefined)
  // At ready, not at listen: a port already taken stops the start like the app's own port does.
  app.addHook('onReady', async () => {
    server = await listenForMetrics(metrics.registry, where.host, where.port, app.log)
  })
  app.addHook('onClose', async () => {
    metrics.stop()
    if (!server) return
    server.closeAllConnections()
    await new Promise<void>((resolve) => server!.close(() => resolve()))
  })
}

async function listenForMetrics(registry: Registry, host: string, port: number, log: FastifyBaseLogger): Promise<http.Server> {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0]
    if (path !== '/metrics') return answer(response, 404, 'Only /metrics is served here.\n')
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('allow', 'GET, HEAD')
      return answer(response, 405, 'GET /metrics only.\n')
    }
    registry.metrics().then(
      (text) => {
        response.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' })
        response.end(request.method === 'HEAD' ? undefined : text)
      },
      (error: unknown) => {
        log.error({ err: error }, 'metrics could not be collected')
        answer(response, 500, 'The metrics could not be collected.\n')
      },
    )
  })
  server.requestTimeout = 10_000
  server.headersTimeout = 5_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address()
  log.info({ address: typeof address === 'object' && address ? `${address.address}:${address.port}` : address }, 'metrics listening')
  return server
}

function answer(response: http.ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
  response.end(text)
}
