/**
 * The /api prefix: JSON in, JSON out, JSON errors. Every answer that is not a success
 * has the shape `{ "error": { "code", "message", "requestId" } }`, including unknown
 * routes and failed schema validation; a 5xx never carries its real message (only a
 * digest that finds the log line). Route modules (server/api/) are registered inside
 * this context so they inherit all of it.
 */
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { digestOf } from '../../shared/digest.js'
import { reportServerError } from '../monitoring/error-reporter.js'

export interface ApiPluginOptions {
  readonly routes: readonly FastifyPluginAsync[]
}

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

/** The JSON error body of every API-style answer: /api and form posts sent by scripts. */
export function errorBody(request: FastifyRequest, code: string, message: string, digest?: string) {
  return { error: { code, message, requestId: String(request.id), ...(digest ? { digest } : {}) } }
}

export function sendApiError(
  reply: FastifyReply,
  request: FastifyRequest,
  status: number,
  code: string,
  message: string,
  digest?: string,
) {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .type('application/json; charset=utf-8')
    .send(errorBody(request, code, message, digest))
}

export default async function apiPlugin(fastify: FastifyInstance, opts: ApiPluginOptions) {
  function sendApiNotFound(request: FastifyRequest, reply: FastifyReply) {
    return sendApiError(reply, request, 404, 'APP_ERR_NOT_FOUND', `No API route ${request.method} ${request.url.split('?')[0]}`)
  }
  // Unmatched /api paths would fall to the page routes (GET and POST /*), so the
  // prefix claims its whole namespace, every method, itself.
  fastify.setNotFoundHandler(sendApiNotFound)
  fastify.all('/*', sendApiNotFound)
  fastify.all('/', sendApiNotFound)

  fastify.setErrorHandler(function sendApiFailure(error: FastifyError, request, reply) {
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500
    if (status >= 500) {
      const digest = digestOf(error)
      reportServerError(request, error, 'api request failed', { digest })
      return sendApiError(reply, request, status, 'APP_ERR_INTERNAL', 'Internal server error', digest)
    }
    const code = error.validation ? 'APP_ERR_VALIDATION' : (error.code ?? 'APP_ERR_HTTP')
    return sendApiError(reply, request, status, code, error.message)
  })

  for (const routes of opts.routes) await fastify.register(routes)
}
