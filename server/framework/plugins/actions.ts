/**
 * Server actions (docs/architecture.md, "Server actions"): `POST <page path>`. Checked cheapest first:
 * origin and budget before the body is read, then content type and size, then the page, its
 * guards (a multipart body is read only after them), then the action.
 */
import fastifyMultipart from '@fastify/multipart'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ACTION_FIELD } from '../../../shared/framework/actions.js'
import { IDENTITY_FIELD } from '../../../shared/framework/identity.js'
import { tidyPathname } from '../../../shared/framework/location.js'
import { allowedMethods } from '../../../shared/framework/route-actions.js'
import { actionResponses } from '../actions/responses.js'
import { actionNamed } from '../actions/find-action.js'
import { labelPageRoute } from '../metrics/route-label.js'
import { ACTION_BODY_LIMIT, FORM_TYPE, readForm } from '../actions/read-form.js'
import { respondToForm, respondToGuardStop } from '../actions/run-action.js'
import { foreignCharset } from '../content-charset.js'
import { runGuards } from '../guards.js'
import { AppError, errors } from '../error-registry.js'
import { declareRequestKind } from '../request-kinds.js'
import type { PageHandlers } from '../render/page-handlers.js'
import { locationOfTarget } from '../render/resolve-page.js'
import type { RouteRateLimit } from '../route-rate-limit.js'
import { crossOriginProblem } from '../same-origin.js'
import { removeFiles } from '../uploads/store-upload.js'
import { openResponse } from '../response-control.js'

export interface ActionsPluginOptions {
  readonly pages: PageHandlers
  readonly allowedOrigins: readonly string[]
  readonly uploads: { readonly dir: string; readonly maxBytes: number }
  /** None: no limit. */
  readonly rateLimit?: RouteRateLimit | undefined
}

/** Another charset than UTF-8 would be read into replacement characters (`caf%E9` as "caf\uFFFD"). */
function parseUrlencodedForm(request: FastifyRequest, body: string | Buffer, done: (error: Error | null, form?: URLSearchParams) => void) {
  const charset = foreignCharset(request.headers['content-type'])
  if (charset !== undefined) {
    return done(new AppError(errors.FORM_CHARSET(JSON.stringify(charset.slice(0, 40)))))
  }
  done(null, new URLSearchParams(body as string))
}

export default async function actionsPlugin(fastify: FastifyInstance, opts: ActionsPluginOptions) {
  const allowedOrigins = new Set(opts.allowedOrigins)
  const { pages, uploads } = opts
  const responses = actionResponses(pages)
  const { sendClientError } = responses
  // Every error of a form post, thrown anywhere, is sent by the app's error handler in this form.
  declareRequestKind(fastify, 'action')
  fastify.errorResponses.renderActionsWith(responses.sendFailure)

  fastify.removeAllContentTypeParsers()
  fastify.addContentTypeParser(FORM_TYPE, { parseAs: 'string', bodyLimit: ACTION_BODY_LIMIT }, parseUrlencodedForm)
  // Multipart bodies are left unread by the parser it adds: runAction reads them once the page is known to take files.
  await fastify.register(fastifyMultipart)

  fastify.post(
    '/*',
    {
      bodyLimit: ACTION_BODY_LIMIT,
      ...(opts.rateLimit ? { config: { rateLimit: opts.rateLimit } } : {}),
      // Before the body is read: a cross-site post costs us no parsing.
      onRequest: async function refuseCrossOriginPost(request, reply) {
        const crossOrigin = crossOriginProblem(request, allowedOrigins)
        if (crossOrigin) {
          request.log.warn({ origin: request.headers.origin, referer: request.headers.referer }, 'cross-origin form post refused')
          return sendClientError(request, reply, crossOrigin)
        }
      },
    },
    async function runAction(request: FastifyRequest, reply: FastifyReply) {
      const location = locationOfTarget(request.url)
      if (!location) return sendClientError(request, reply, errors.MALFORMED_URL())
      // A GET of an untidy path redirects: no form is there, and no answer could go back to it.
      if (tidyPathname(location.pathname) !== location.pathname) return sendClientError(request, reply, errors.PAGE_NOT_FOUND())
      const multipart = request.isMultipart()
      if (!multipart && !(request.body instanceof URLSearchParams)) {
        return sendClientError(request, reply, errors.FORM_NOT_URLENCODED())
      }
      const view = pages.view()
      const { definition } = view
      // The not-found page is in the root layout: the root's actions (the theme choice) work there too.
      const match = definition.router.match(location.pathname)
      labelPageRoute(request, match?.id)
      const allow = allowedMethods(definition.router, match?.id)
      if (!allow.includes('POST')) {
        if (!match) return sendClientError(request, reply, errors.PAGE_NOT_FOUND())
        reply.header('allow', allow)
        return sendClientError(request, reply, errors.NO_ACTIONS())
      }
      // Before a byte of the body is read as files.
      const guards = await runGuards(request, definition, match, location)
      if (!guards.ok) return respondToGuardStop(responses, request, reply, guards, match)
      const findAction = (name: string | null) => actionNamed(definition, match, name)

      const form = await readForm(request, { multipart, match, uploads, findAction })
      if (!('fields' in form)) return sendClientError(request, reply, form)
      // Files go before any answer does: a client that has the answer finds them gone.
      const release = () => removeFiles([...form.files.values()].map((file) => file.path))
      try {
        const found = findAction(form.fields.get(ACTION_FIELD))
        if (!('handler' in found)) {
          await release()
          return await sendClientError(request, reply, found)
        }
        if (await postedForAnotherIdentity(request, form.fields)) {
          await release()
          return await sendClientError(request, reply, errors.IDENTITY_CHANGED())
        }
        const guard = found.owner.kind === 'layout' ? guards.layouts.get(found.owner.id) : guards.route
        return await respondToForm(responses, request, reply, { view, location, match, guard }, found, form, release)
      } finally {
        // Whatever happened on the way (nothing should): no file outlives its request.
        await release()
      }
    },
  )
}

/**
 * A form of a dynamic page says who it was rendered for; posted after a sign-in or out in
 * any tab, it would act for someone the page never showed: refused. A form without the
 * field (a static page's, a hand-written client's) acts for the session as it is, which
 * is all a client can do with its own cookie anyway. No cookie is set on the refusal: it
 * could land after a sign-in in another tab and undo it.
 */
async function postedForAnotherIdentity(request: FastifyRequest, fields: URLSearchParams): Promise<boolean> {
  const posted = fields.get(IDENTITY_FIELD)
  if (posted === null) return false
  return posted !== (await openResponse(request)).identity
}
