/**
 * The last line of defence: an error that escapes every route's own handling. Below
 * 500 (a body Fastify would not parse, say) it is a refusal, answered in the form of
 * the request's surface (server/framework/http-errors.ts). From 500 up it is logged in full with
 * a digest; the user gets the generic error page, or the error payload for page data.
 */
import type { FastifyError, FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { SERVER_ERROR_TEXT } from '../../../shared/framework/error-texts.js'
import { digestOf } from '../../../shared/framework/digest.js'
import type { ErrorPayload } from '../../../shared/framework/page-payload.js'
import { reportServerError } from '../monitoring/error-reporter.js'
import { errorBody, NO_STORE, refusalOf, statusOf, surfaceOf } from '../http-errors.js'
import { ErrorCode } from '../../../shared/framework/errors.js'
import { renderShellErrorDocument } from '../render/document.js'

export interface ErrorsPluginOptions {
  /** The build id that page-data answers carry. */
  readonly buildId: string
}

async function errorsPlugin(fastify: FastifyInstance, opts: ErrorsPluginOptions) {
  fastify.setErrorHandler(function sendUnexpectedError(error: FastifyError, request, reply) {
    const status = statusOf(error)
    if (status < 500) return fastify.refusals.send(request, reply, refusalOf(error))
    const digest = digestOf(error)
    reportServerError(request, error, 'request failed', { digest })
    reply.code(status).header('cache-control', NO_STORE)
    switch (surfaceOf(request.url)) {
      case 'api':
        return reply.send(errorBody(request, ErrorCode.INTERNAL, 'Internal server error', digest))
      case 'data':
        return reply.send({ kind: 'error', status, digest, buildId: opts.buildId } satisfies ErrorPayload)
      default:
        return reply.type('text/html; charset=utf-8').send(renderShellErrorDocument(SERVER_ERROR_TEXT, digest))
    }
  })
}

export default fp(errorsPlugin, { name: 'errors' })
