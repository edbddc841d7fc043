/** One observation per response, at the root so that every request kind and every refusal is counted. */
import type { FastifyInstance } from 'fastify'
import { requestKindOf } from '../request-kinds.js'
import type { Metrics } from './metrics.js'
import { routeLabelOf } from './route-label.js'

export function recordRequests(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', async function recordRequest(request, reply) {
    metrics.request(routeLabelOf(request), request.method, reply.statusCode, requestKindOf(request), reply.elapsedTime / 1000)
  })
}
