/** The app's one error handler; route plugins set no handler of their own. */
import type { FastifyError, FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { classify } from '../failures.js'
import { failedMessageFor, requestKindOf } from '../request-kinds.js'

type SendError = FastifyError & { readonly headers?: Readonly<Record<string, string>> }

async function errorsPlugin(fastify: FastifyInstance) {
  fastify.setErrorHandler(function sendError(error: SendError, request, reply) {
    const failure = classify(request, error, failedMessageFor(requestKindOf(request)))
    // @fastify/static's 416 carries the length a client needs to ask again.
    const contentRange = error.headers?.['Content-Range']
    if (failure.type === 'client-error' && failure.error.status === 416 && contentRange) reply.header('content-range', contentRange)
    return fastify.errorResponses.sendFailure(request, reply, failure)
  })
}

export default fp(errorsPlugin, { name: 'errors' })
