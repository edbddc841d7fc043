/**
 * How a form post is responded to (docs/architecture.md, "Server actions"): 303, 422 with the
 * page again, or an error page; JSON instead for `Accept: application/json`.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ActionResponse, ActionState, ChangedOnWire } from '../../../shared/framework/actions.js'
import type { CanonicalLocation } from '../../../shared/framework/location.js'
import { errors, type ClientError } from '../error-registry.js'
import { errorBody, NO_STORE, sameSiteLocation } from '../error-responses.js'
import type { Failure, ServerError } from '../failures.js'
import type { AppView } from '../render/app-view.js'
import type { PageHandlers } from '../render/page-handlers.js'
import { devErrorOf, locationOfTarget } from '../render/resolve-page.js'
import { toBrowserJson } from '../server-only.js'

export function wantsJson(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('application/json')
}

export interface ActionResponses {
  sendClientError(request: FastifyRequest, reply: FastifyReply, error: ClientError): Promise<FastifyReply>
  /** A classified failure: a redirect is followed as a success would be. */
  sendFailure(request: FastifyRequest, reply: FastifyReply, failure: Failure): Promise<FastifyReply> | FastifyReply
  respondInvalid(request: FastifyRequest, reply: FastifyReply, view: AppView, location: CanonicalLocation, state: ActionState): Promise<FastifyReply>
  respondSuccess(request: FastifyRequest, reply: FastifyReply, to: string, changed?: ChangedOnWire): FastifyReply
}

export function actionResponses(pages: PageHandlers): ActionResponses {
  const { buildId } = pages

  async function sendError(request: FastifyRequest, reply: FastifyReply, error: ClientError, serverError?: ServerError) {
    const { status, code, message } = error
    reply.header('cache-control', NO_STORE)
    if (wantsJson(request)) return reply.code(status).send(errorBody(request, code, message, serverError?.digest))
    const location = locationOfTarget(request.url)
    if (!location) return request.server.errorResponses.send(request, reply, errors.MALFORMED_URL())
    const devError = pages.development && serverError ? { devError: devErrorOf(serverError.thrown) } : {}
    const payload = serverError
      ? { kind: 'error' as const, status, digest: serverError.digest, buildId, ...devError }
      : { kind: 'error' as const, status, message, buildId }
    return pages.sendDocument(reply, pages.view(), location, payload)
  }

  const sendClientError = (request: FastifyRequest, reply: FastifyReply, error: ClientError) => sendError(request, reply, error)

  function sendFailure(request: FastifyRequest, reply: FastifyReply, failure: Failure) {
    switch (failure.type) {
      case 'redirect':
        return respondSuccess(request, reply, failure.location)
      case 'not-found':
        return sendError(request, reply, errors.PAGE_NOT_FOUND())
      case 'client-error':
        return sendError(request, reply, failure.error)
      case 'server-error':
        return sendError(request, reply, { ...errors.INTERNAL(), status: failure.status }, failure)
    }
  }

  async function respondInvalid(request: FastifyRequest, reply: FastifyReply, view: AppView, location: CanonicalLocation, state: ActionState) {
    reply.header('cache-control', NO_STORE)
    if (wantsJson(request)) {
      const routeId = view.definition.router.match(location.pathname)?.id
      return sendJson(reply, 422, { ok: false, ...state } satisfies ActionResponse, actionAnswer(state.action, routeId ?? 'unmatched'))
    }
    const resolution = await pages.resolve(request, view, location)
    await resolution.response?.applyTo(reply)
    if (resolution.kind === 'redirect') return reply.redirect(resolution.location, 303)
    const page = resolution.payload
    const payload = page.kind === 'page' ? { ...page, status: 422 as const, action: state } : page
    return pages.sendDocument(reply, view, location, payload)
  }

  return { sendClientError, sendFailure, respondInvalid, respondSuccess }
}

/** JSON for a script, as a fetch would follow a 303 and lose what the action changed. */
function respondSuccess(request: FastifyRequest, reply: FastifyReply, to: string, changed?: ChangedOnWire) {
  const location = sameSiteLocation(to)
  reply.header('cache-control', NO_STORE)
  if (wantsJson(request)) {
    const body = { ok: true, redirect: location, ...(changed ? { changed } : {}) } satisfies ActionResponse
    return sendJson(reply, 200, body, `The answer of an action posted to ${request.url.split('?')[0]}`)
  }
  return reply.redirect(location, 303)
}

const actionAnswer = (action: string, routeId: string) => `The answer of action "${action}" of route "${routeId}"`

/** Through the one serializer of browser answers: a server-only value refused is thrown to the error handler, a 500. */
function sendJson(reply: FastifyReply, status: number, body: ActionResponse, answer: string): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(toBrowserJson(body, answer))
}
