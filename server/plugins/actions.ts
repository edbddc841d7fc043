/**
 * Server actions (docs/architecture.md, "Server actions"): `POST <page path>` with a urlencoded body naming the
 * action in `_action`. Checked in this order, cheapest first:
 * 1. the origin (before the body is read): 403;
 * 2. the content type (only urlencoded is parsed here): 415; the size (1 MiB): 413;
 * 3. the page (404), whether it or a layout around it has actions (405, Allow: GET,
 *    HEAD), the action, on the page's route or one of its layouts (404);
 * 4. the action runs: success is 303 See Other (JSON `{ ok, redirect }` for a form
 *    sent by JavaScript), a refusal is the page again with 422, its errors and the
 *    submitted values (JSON for JavaScript), a throw is a 500 with a digest.
 * A client that sends `Accept: application/json` gets every answer as JSON; a plain
 * browser form gets HTML pages.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ACTION_FIELD, type ActionResponse, type ActionState } from '../../shared/actions.js'
import { digestOf } from '../../shared/digest.js'
import { isHttpError, isNotFound, isRedirect } from '../../shared/errors.js'
import { reportServerError } from '../monitoring/error-reporter.js'
import type { ActionHandler } from '../page-definition.js'
import { devErrorOf, locationOfTarget } from '../render/resolve-page.js'
import type { PageResponder } from '../render/page-responder.js'
import { MALFORMED_URL, NO_STORE, errorBody, refusalOf, sameSiteLocation, statusOf } from '../http-errors.js'
import { ErrorCode } from '../../shared/errors.js'
import { crossOriginProblem } from '../same-origin.js'
import { actionOwner, allowedMethods } from '../../shared/route-actions.js'
import { collectResponse } from '../response-control.js'

/** The largest form body accepted: forms carry text, not uploads. */
export const ACTION_BODY_LIMIT = 1024 * 1024

export interface ActionsPluginOptions {
  readonly pages: PageResponder
  /** Origins besides this site's own that may post forms (ALLOWED_ORIGINS). */
  readonly allowedOrigins: readonly string[]
}

const FORM_TYPE = 'application/x-www-form-urlencoded'

function wantsJson(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('application/json')
}

export default async function actionsPlugin(fastify: FastifyInstance, opts: ActionsPluginOptions) {
  const allowedOrigins = new Set(opts.allowedOrigins)
  const { pages } = opts
  const { buildId } = pages

  /** A refusal or failure, as JSON for scripts and as an error page for browsers. */
  async function sendProblem(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    code: string,
    message: string,
    failure?: { readonly digest: string; readonly error: unknown },
  ) {
    const digest = failure?.digest
    reply.header('cache-control', NO_STORE)
    if (wantsJson(request)) return reply.code(status).send(errorBody(request, code, message, digest))
    const location = locationOfTarget(request.url)
    if (!location) return fastify.refusals.send(request, reply, MALFORMED_URL)
    const devError = pages.development && failure ? { devError: devErrorOf(failure.error) } : {}
    const payload =
      status >= 500
        ? { kind: 'error' as const, status, digest, buildId, ...devError }
        : { kind: 'error' as const, status, message, buildId }
    return pages.sendDocument(reply, pages.view(), location, payload)
  }

  fastify.removeAllContentTypeParsers()
  fastify.addContentTypeParser(FORM_TYPE, { parseAs: 'string', bodyLimit: ACTION_BODY_LIMIT }, (_request, body, done) =>
    done(null, new URLSearchParams(body as string)),
  )

  fastify.setErrorHandler(async function sendActionFailure(error: FastifyError, request, reply) {
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendProblem(request, reply, 413, ErrorCode.BODY_TOO_LARGE, `Forms may be at most ${ACTION_BODY_LIMIT} bytes.`)
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return sendProblem(request, reply, 415, ErrorCode.UNSUPPORTED_MEDIA_TYPE, `Forms must be sent as ${FORM_TYPE}.`)
    }
    if (statusOf(error) < 500) {
      const refusal = refusalOf(error)
      return sendProblem(request, reply, refusal.status, refusal.code, refusal.message)
    }
    const digest = digestOf(error)
    reportServerError(request, error, 'form post failed', { digest })
    return sendProblem(request, reply, 500, ErrorCode.INTERNAL, 'Internal server error', { digest, error })
  })

  fastify.post(
    '/*',
    {
      bodyLimit: ACTION_BODY_LIMIT,
      // Before the body is read: a cross-site post costs us no parsing.
      onRequest: async function refuseCrossOriginPost(request, reply) {
        const problem = crossOriginProblem(request, allowedOrigins)
        if (problem) {
          request.log.warn({ origin: request.headers.origin, referer: request.headers.referer }, 'cross-origin form post refused')
          return sendProblem(request, reply, 403, ErrorCode.CROSS_ORIGIN, problem)
        }
      },
    },
    async function runAction(request: FastifyRequest, reply: FastifyReply) {
      const location = locationOfTarget(request.url)
      if (!location) return sendProblem(request, reply, 400, MALFORMED_URL.code, MALFORMED_URL.message)
      if (!(request.body instanceof URLSearchParams)) {
        return sendProblem(request, reply, 415, ErrorCode.UNSUPPORTED_MEDIA_TYPE, `Forms must be sent as ${FORM_TYPE}.`)
      }
      const view = pages.view()
      const { definition } = view
      const { router } = definition
      // A page with no route is the not-found page, in the root layout: the root's
      // actions (the theme choice) work there too.
      const match = router.match(location.pathname)
      const allow = allowedMethods(router, match?.id)
      if (!allow.includes('POST')) {
        if (!match) return sendProblem(request, reply, 404, ErrorCode.NOT_FOUND, 'There is no page at this address.')
        reply.header('allow', allow)
        return sendProblem(request, reply, 405, ErrorCode.METHOD_NOT_ALLOWED, 'This page has no actions to post to.')
      }
      const name = request.body.get(ACTION_FIELD)
      if (!name) {
        return sendProblem(request, reply, 400, ErrorCode.NO_ACTION, `The form names no action (its ${ACTION_FIELD} field is missing).`)
      }
      const owner = actionOwner(router, match?.id, name)
      const handlers = (
        owner?.kind === 'route' ? definition.serverPages[owner.id]?.actions : owner ? definition.serverLayouts[owner.id]?.actions : undefined
      ) as Record<string, ActionHandler<any, string>> | undefined
      const handler = owner && handlers && Object.hasOwn(handlers, name) ? handlers[name] : undefined
      if (!owner || !handler) {
        return sendProblem(request, reply, 404, ErrorCode.UNKNOWN_ACTION, `This page has no action named ${JSON.stringify(name.slice(0, 100))}.`)
      }
      const { fields } = owner

      const body = request.body
      const input = Object.fromEntries(fields.map((field) => [field, body.get(field) ?? '']))
      // What the action does to the answer (cookies, headers) goes out whatever its outcome.
      const response = collectResponse(request)
      let outcome
      try {
        outcome = await handler(input, {
          params: match?.params ?? {},
          searchParams: new URLSearchParams(location.search),
          request,
          cookies: response.cookies,
          response: response.control,
          session: response.session,
        })
      } catch (error) {
        response.applyTo(reply)
        if (isRedirect(error)) return answerSuccess(request, reply, error.location)
        if (isNotFound(error)) return sendProblem(request, reply, 404, ErrorCode.NOT_FOUND, 'There is no page at this address.')
        if (isHttpError(error) && error.status < 500) {
          return sendProblem(request, reply, error.status, error.code, error.expose ? error.message : 'The request was refused.')
        }
        const digest = digestOf(error)
        reportServerError(request, error, 'action failed', {
          digest,
          ...(match ? { routeId: match.id } : {}),
          ...(owner.kind === 'layout' ? { layoutId: owner.id } : {}),
          action: name,
        })
        return sendProblem(request, reply, 500, ErrorCode.INTERNAL, 'Internal server error', { digest, error })
      }

      response.applyTo(reply)
      if (outcome.ok) return answerSuccess(request, reply, outcome.redirect ?? location.key)
      const state: ActionState = {
        action: name,
        fieldErrors: outcome.fieldErrors as Record<string, string>,
        ...(outcome.formError ? { formError: outcome.formError } : {}),
        values: input,
      }
      reply.header('cache-control', NO_STORE)
      if (wantsJson(request)) return reply.code(422).send({ ok: false, ...state } satisfies ActionResponse)
      // No JavaScript: the page again, with the errors next to their fields.
      const resolution = await pages.resolve(request, view, location)
      resolution.response?.applyTo(reply)
      if (resolution.kind === 'redirect') return reply.redirect(resolution.location, 303)
      const page = resolution.payload
      const payload = page.kind === 'page' ? { ...page, status: 422 as const, action: state } : page
      return pages.sendDocument(reply, view, location, payload)
    },
  )
}

/** Success: 303 See Other for a browser form, JSON for a script (a fetch would follow the 303). */
function answerSuccess(request: FastifyRequest, reply: FastifyReply, to: string) {
  const location = sameSiteLocation(to)
  reply.header('cache-control', NO_STORE)
  if (wantsJson(request)) return reply.send({ ok: true, redirect: location } satisfies ActionResponse)
  return reply.redirect(location, 303)
}
