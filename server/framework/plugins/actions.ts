/**
 * Server actions (docs/architecture.md, "Server actions"): `POST <page path>` with a urlencoded body naming the
 * action in `_action`, or a multipart one for an action that takes files. Checked in
 * this order, cheapest first:
 * 1. the origin (before the body is read): 403; then the client address's budget
 *    (RATE_LIMIT_FORMS, server/framework/plugins/rate-limit.ts): 429;
 * 2. the content type (urlencoded, or multipart where the route declares files): 415;
 *    an urlencoded body's size (1 MiB): 413;
 * 3. the page (404), whether it or a layout around it has actions (405, Allow: GET,
 *    HEAD), the guards around it (server/framework/guards.ts: their redirect, 403,
 *    404); a multipart body is read only then, its files checked and stored as they
 *    arrive (server/framework/uploads/receive-multipart.ts: 400, 413, 415);
 * 4. the action, on the page's route or one of its layouts (404); it runs: success is 303 See Other (JSON `{ ok, redirect }` for a form
 *    sent by JavaScript), a refusal is the page again with 422, its errors and the
 *    submitted values but the secret fields' (JSON for JavaScript), a throw is a 500
 *    with a digest.
 * A client that sends `Accept: application/json` gets every answer as JSON; a plain
 * browser form gets HTML pages.
 */
import fastifyMultipart from '@fastify/multipart'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ACTION_FIELD } from '../../../shared/framework/actions.js'
import { tidyPathname } from '../../../shared/framework/location.js'
import { allowedMethods } from '../../../shared/framework/route-actions.js'
import { actionAnswers } from '../actions/answers.js'
import { actionNamed } from '../actions/find-action.js'
import { ACTION_BODY_LIMIT, FORM_TYPE, readForm } from '../actions/read-form.js'
import { answerForm, answerGuardStop } from '../actions/run-action.js'
import { foreignCharset } from '../content-charset.js'
import { runGuards } from '../guards.js'
import { AppError, errors } from '../error-registry.js'
import { declareRequestKind } from '../request-kinds.js'
import type { PageResponder } from '../render/page-responder.js'
import { locationOfTarget } from '../render/resolve-page.js'
import type { RouteRateLimit } from '../route-rate-limit.js'
import { crossOriginProblem } from '../same-origin.js'
import { removeFiles } from '../uploads/store-upload.js'

export interface ActionsPluginOptions {
  readonly pages: PageResponder
  /** Origins besides this site's own that may post forms (ALLOWED_ORIGINS). */
  readonly allowedOrigins: readonly string[]
  /** Where files are kept while their action runs (UPLOAD_DIR), and the most one form with files may have (UPLOAD_MAX_BYTES). */
  readonly uploads: { readonly dir: string; readonly maxBytes: number }
  /** Posts per window per client address (RATE_LIMIT_FORMS): over it, 429. None: no limit. */
  readonly rateLimit?: RouteRateLimit | undefined
}

/**
 * Browsers send a UTF-8 page's forms in UTF-8; a body declaring another charset would
 * be read into replacement characters (`caf%E9` as "caf\uFFFD"), so it is refused.
 */
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
  const answers = actionAnswers(pages)
  const { sendClientError } = answers
  // Every error of a form post, thrown anywhere, is sent by the app's error handler in this form.
  declareRequestKind(fastify, 'action')
  fastify.errorResponses.renderActionsWith(answers.sendFailure)

  fastify.removeAllContentTypeParsers()
  fastify.addContentTypeParser(FORM_TYPE, { parseAs: 'string', bodyLimit: ACTION_BODY_LIMIT }, parseUrlencodedForm)
  // Multipart bodies are left unread by the parser it adds: runAction reads them once the page is known to take files.
  await fastify.register(fastifyMultipart)

  fastify.post(
    '/*',
    {
      bodyLimit: ACTION_BODY_LIMIT,
      // Counted before the body is read (server/framework/plugins/rate-limit.ts).
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
      // A form is on a tidy path (a GET of an untidy one redirects): nothing to run here,
      // and no answer could go back to it.
      if (tidyPathname(location.pathname) !== location.pathname) return sendClientError(request, reply, errors.PAGE_NOT_FOUND())
      const multipart = request.isMultipart()
      if (!multipart && !(request.body instanceof URLSearchParams)) {
        return sendClientError(request, reply, errors.FORM_NOT_URLENCODED())
      }
      const view = pages.view()
      const { definition } = view
      // A path no route matches is the not-found page, in the root layout: the root's
      // actions (the theme choice) work there too.
      const match = definition.router.match(location.pathname)
      const allow = allowedMethods(definition.router, match?.id)
      if (!allow.includes('POST')) {
        if (!match) return sendClientError(request, reply, errors.PAGE_NOT_FOUND())
        reply.header('allow', allow)
        return sendClientError(request, reply, errors.NO_ACTIONS())
      }
      // The page's guards, before a byte of the body is read as files or any action runs.
      const guards = await runGuards(request, definition, match, location)
      if (!guards.ok) return answerGuardStop(answers, request, reply, guards, match)
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
        const guard = found.owner.kind === 'layout' ? guards.layouts.get(found.owner.id) : guards.route
        return await answerForm(answers, request, reply, { view, location, match, guard }, found, form, release)
      } finally {
        // Whatever happened on the way (nothing should): no file outlives its request.
        await release()
      }
    },
  )
}
