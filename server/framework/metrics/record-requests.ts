/** One observation per response, at the root so that every request kind and every refusal is counted. */
import type { FastifyInstance } from 'fastify'
import { requestKindOf } from '../request-kinds.js'
import type { Metrics } from './metrics.js'
import { routeLabelOf } from './route-label.js'

export function recordRequests(app: FastifyInstance, metrics: Metrics): void {
  // A callback hook: an async one costs a promise per response.
  app.addHook('onResponse', function recordRequest(request, reply, done) {
    // `routeOptions` is a getter that builds a dozen-field object: read once for the label and the kind.
    const route = request.routeOptions
    metrics.request(routeLabelOf(request, route.url), request.method, reply.statusCode, requestKindOf(request, route), reply.elapsedTime / 1000)
    done()
  })
}
