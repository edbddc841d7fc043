/**
 * The last line of defence: an error that escapes every route's own handling. From
 * 500 up it is logged in full with a digest and the user gets the generic error page;
 * below 500 (a malformed URL, a body Fastify refused) the status and Fastify's own
 * message, which describes the request, not our internals.
 */
import type { FastifyError, FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { SERVER_ERROR_TEXT } from '../../client/components/error-page.js'
import { digestOf } from '../../shared/digest.js'
import { reportServerError } from '../monitoring/error-reporter.js'
import { renderShellErrorDocument } from '../render/document.js'

async function errorsPlugin(fastify: FastifyInstance) {
  fastify.setErrorHandler(function sendUnexpectedError(error: FastifyError, request, reply) {
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500
    reply.header('cache-control', 'private, no-store')
    if (status < 500) {
      return reply.code(status).type('text/plain; charset=utf-8').send(`${status}: ${error.message}`)
    }
    const digest = digestOf(error)
    reportServerError(request, error, 'request failed', { digest })
    return reply.code(status).type('text/html; charset=utf-8').send(renderShellErrorDocument(SERVER_ERROR_TEXT, digest))
  })
}

export default fp(errorsPlugin, { name: 'errors' })
