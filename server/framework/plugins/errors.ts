/**
 * The last line of defence: an error that escapes every route's own handling. What it
 * becomes is decided in server/framework/failures.ts (a refusal below 500; from 500 up
 * a fault, logged and reported with its digest) and answered in the form of the
 * request's surface: the generic error page, the error payload for page data, the API's
 * JSON.
 */
import type { FastifyError, FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { failureOf } from '../failures.js'

async function errorsPlugin(fastify: FastifyInstance) {
  fastify.setErrorHandler(function sendUnexpectedError(error: FastifyError, request, reply) {
    return fastify.refusals.sendFailure(request, reply, failureOf(request, error, 'request failed'))
  })
}

export default fp(errorsPlugin, { name: 'errors' })
