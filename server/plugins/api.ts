/**
 * The /api prefix: JSON in, JSON out, JSON errors. Every answer that is not a success
 * has the shape `{ "error": { "code", "message", "requestId" } }`, including unknown
 * routes and failed schema validation; a 5xx never carries its real message (only a
 * digest that finds the log line). Route modules (server/api/) are registered inside
 * this context so they inherit all of it.
 */
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { digestOf } from '../../shared/digest.js'
import { ErrorCode } from '../../shared/errors.js'
import { reportServerError } from '../monitoring/error-reporter.js'
import { errorBody, NO_STORE, refusalOf, statusOf } from '../http-errors.js'

export interface ApiPluginOptions {
  readonly routes: readonly FastifyPluginAsync[]
}

export default async function apiPlugin(fastify: FastifyInstance, opts: ApiPluginOptions) {
  // Unmatched /api paths would fall to the page routes (GET and POST /*), so the
  // prefix claims its whole namespace, every method, itself; answered before any
  // body is read, so an unknown route is a 404 whatever its content type.
  async function sendApiNotFound(request: FastifyRequest, reply: FastifyReply) {
    return fastify.refusals.send(request, reply, {
      status: 404,
      code: ErrorCode.NOT_FOUND,
      // HEAD is answered as its GET would be, to the byte count.
      message: `No API route answers ${request.method === 'HEAD' ? 'GET' : request.method} at this path.`,
    })
  }
  fastify.setNotFoundHandler(sendApiNotFound)
  fastify.all('/*', { onRequest: sendApiNotFound }, sendApiNotFound)
  fastify.all('/', { onRequest: sendApiNotFound }, sendApiNotFound)

  fastify.setErrorHandler(function sendApiFailure(error: FastifyError, request, reply) {
    const status = statusOf(error)
    if (status < 500) return fastify.refusals.send(request, reply, refusalOf(error))
    const digest = digestOf(error)
    reportServerError(request, error, 'api request failed', { digest })
    return reply
      .code(status)
      .header('cache-control', NO_STORE)
      .type('application/json; charset=utf-8')
      .send(errorBody(request, ErrorCode.INTERNAL, 'Internal server error', digest))
  })

  for (const routes of opts.routes) await fastify.register(routes)
}
