/**
 * The /api prefix: JSON in, JSON out, JSON errors. Every answer that is not a success
 * has the shape `{ "error": { "code", "message", "requestId" } }`, including unknown
 * routes and failed schema validation; a 5xx never carries its real message.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { digestOf } from '../../shared/digest.js'

export const API_ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'requestId'],
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        requestId: { type: 'string' },
        digest: { type: 'string' },
      },
    },
  },
} as const

function sendApiError(reply: FastifyReply, request: FastifyRequest, status: number, code: string, message: string, digest?: string) {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .send({ error: { code, message, requestId: String(request.id), ...(digest ? { digest } : {}) } })
}

export default async function apiPlugin(fastify: FastifyInstance) {
  function sendApiNotFound(request: FastifyRequest, reply: FastifyReply) {
    return sendApiError(reply, request, 404, 'APP_ERR_NOT_FOUND', `No API route ${request.method} ${request.url.split('?')[0]}`)
  }
  // Unmatched methods fall to the not-found handler; unmatched GET paths would fall
  // to the page wildcard, so the prefix claims them itself.
  fastify.setNotFoundHandler(sendApiNotFound)
  fastify.get('/*', sendApiNotFound)
  fastify.get('/', sendApiNotFound)

  fastify.setErrorHandler(function sendApiFailure(error: FastifyError, request, reply) {
    const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500
    if (status >= 500) {
      const digest = digestOf(error)
      request.log.error({ err: error, digest }, 'api request failed')
      return sendApiError(reply, request, status, 'APP_ERR_INTERNAL', 'Internal server error', digest)
    }
    const code = error.validation ? 'APP_ERR_VALIDATION' : (error.code ?? 'APP_ERR_HTTP')
    return sendApiError(reply, request, status, code, error.message)
  })

  fastify.get(
    '/health',
    {
      schema: {
        response: {
          200: { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } },
        },
      },
    },
    async function reportHealth(_request, reply) {
      reply.header('cache-control', 'no-store')
      return { status: 'ok' as const }
    },
  )

  fastify.get(
    '/ready',
    {
      schema: {
        response: {
          200: { type: 'object', required: ['status'], properties: { status: { const: 'ready' } } },
          503: API_ERROR_SCHEMA,
        },
      },
    },
    async function reportReadiness(request, reply) {
      if (fastify.lifecycle.draining) {
        return sendApiError(reply, request, 503, 'APP_ERR_DRAINING', 'This instance is shutting down')
      }
      reply.header('cache-control', 'no-store')
      return { status: 'ready' as const }
    },
  )
}
