/**
 * Probes for the load balancer and the orchestrator: liveness (the process answers)
 * and readiness (it wants traffic: 503 once it is draining for shutdown, or while it
 * sheds load). Both answer while the instance sheds load (`shed: false`).
 */
import type { FastifyInstance } from 'fastify'
import { API_ERROR_SCHEMA, errorBody, errors, NO_STORE } from '../framework/index.js'

export default async function healthRoutes(api: FastifyInstance) {
  api.get(
    '/health',
    {
      config: { shed: false },
      schema: {
        response: {
          200: { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } },
        },
      },
    },
    async function reportHealth(_request, reply) {
      reply.header('cache-control', NO_STORE)
      return { status: 'ok' as const }
    },
  )

  api.get(
    '/ready',
    {
      config: { shed: false },
      schema: {
        response: {
          200: { type: 'object', required: ['status'], properties: { status: { const: 'ready' } } },
          503: API_ERROR_SCHEMA,
        },
      },
    },
    async function reportReadiness(request, reply) {
      const unready = api.lifecycle.draining ? errors.DRAINING() : api.overloaded() ? errors.OVERLOADED() : undefined
      if (unready) {
        const { code, message } = unready
        return reply
          .code(503)
          .header('cache-control', NO_STORE)
          .send(errorBody(request, code, message))
      }
      reply.header('cache-control', NO_STORE)
      return { status: 'ready' as const }
    },
  )
}
