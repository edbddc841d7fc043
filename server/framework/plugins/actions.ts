/**
 * Server actions (docs/architecture.md, "Server actions"): `POST <page path>` with a urlencoded body naming the
 * action in `_action`, or a multipart one for an action that takes files. Checked in
 * this order, cheapest first:
 * 1. the origin (before the body is read): 403; then the client address's budget
 *    (RATE_LIMIT_FORMS, server/framework/plugins/rate-limit.ts): 429;
 * 2. the content type (urlencoded, or multipart where the route declares files): 415;
 *    an urlencoded body's size (1 MiB): 413;
 * 3. the page (404), whether it or a layout around it has actions (405, Allow: GET,
 *    HEAD); a multipart body is read only then, its files checked and stored as they
 *    arrive (server/framework/uploads/receive-multipart.ts: 400, 413, 415);
 * 4. the action, on the page's route or one of its layouts (404); it runs: success is 303 See Other (JSON `{ ok, redirect }` for a form
 *    sent by JavaScript), a refusal is the page again with 422, its errors and the
 *    submitted values (JSON for JavaScript), a throw is a 500 with a digest.
 * A client that sends `Accept: application/json` gets every answer as JSON; a plain
 * browser form gets HTML pages.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ACTION_FIELD, type ActionInput, type ActionOutcome, type ActionResponse, type ActionState } from '../../../shared/framework/actions.js'
import { isHttpError, isNotFound, isRedirect } from '../../../shared/framework/errors.js'
import type { RouteMatch } from '../../../shared/framework/route-table.js'
import { actionOwner, allowedMethods, type ActionOwner } from '../../../shared/framework/route-actions.js'
import { tidyPathname, type CanonicalLocation } from '../../../shared/framework/location.js'
import type { FileFieldsDecl } from '../../../shared/framework/uploads.js'
import { failureOf, faultOf } from '../failures.js'
import type { ActionHandler, AnyAppDefinition } from '../page-definition.js'
import { devErrorOf, locationOfTarget } from '../render/resolve-page.js'
import type { PageResponder } from '../render/page-responder.js'
import type { AppView } from '../render/app-view.js'
import { MALFORMED_URL, NO_STORE, RefusalError, errorBody, sameSiteLocation, type Refusal } from '../http-errors.js'
import { foreignCharset } from '../content-charset.js'
import { ErrorCode } from '../../../shared/framework/errors.js'
import { crossOriginProblem } from '../same-origin.js'
import { collectResponse } from '../response-control.js'
import { receiveMultipart, type ReceivedForm } from '../uploads/receive-multipart.js'
import { removeFiles } from '../uploads/store-upload.js'
import { isUploadRefusal, UploadRefusal } from '../uploads/upload-refusal.js'
import fastifyMultipart from '@fastify/multipart'
import type { RouteRateLimit } from '../route-rate-limit.js'

/** The largest urlencoded form accepted, and the most text a multipart one may carry besides its files. */
export const ACTION_BODY_LIMIT = 1024 * 1024

export interface ActionsPluginOptions {
  readonly pages: PageResponder
  /** Origins besides this site's own that may post forms (ALLOWED_ORIGINS). */
  readonly allowedOrigins: readonly string[]
  /** Where files are kept while their action runs (UPLOAD_DIR), and the most one form with files may have (UPLOAD_MAX_BYTES). */
  readonly uploads: { readonly dir: string; readonly maxBytes: number }
  /** Posts per window per client address (RATE_LIMIT_FORMS): over it, 429. None: no limit. */
  readonly rateLimit?: RouteRateLimit | undefined
}

const FORM_TYPE = 'application/x-www-form-urlencoded'
const NO_PAGE = 'There is no page at this address.'
const URLENCODED_ONLY = `Forms must be sent as ${FORM_TYPE}.`

function wantsJson(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('application/json')
}

export default async function actionsPlugin(fastify: FastifyInstance, opts: ActionsPluginOptions) {
  const allowedOrigins = new Set(opts.allowedOrigins)
  const { pages, uploads } = opts
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
  // Browsers send a UTF-8 page's forms in UTF-8; a body declaring another charset would
  // be read into replacement characters (`caf%E9` as "caf\uFFFD"), so it is refused.
  fastify.addContentTypeParser(FORM_TYPE, { parseAs: 'string', bodyLimit: ACTION_BODY_LIMIT }, (request, body, done) => {
    const charset = foreignCharset(request.headers['content-type'])
    if (charset !== undefined) {
      return done(new RefusalError({ status: 415, code: ErrorCode.UNSUPPORTED_MEDIA_TYPE, message: `Forms must be sent in UTF-8, not ${JSON.stringify(charset.slice(0, 40))}.` }))
    }
    done(null, new URLSearchParams(body as string))
  })
  // Multipart bodies are left unread by the parser it adds: runAction reads them once the page is known to take files.
  await fastify.register(fastifyMultipart)

  fastify.setErrorHandler(async function sendActionFailure(error: FastifyError, request, reply) {
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendProblem(request, reply, 413, ErrorCode.BODY_TOO_LARGE, `Forms may be at most ${ACTION_BODY_LIMIT} bytes.`)
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return sendProblem(request, reply, 415, ErrorCode.UNSUPPORTED_MEDIA_TYPE, URLENCODED_ONLY)
    }
    const { refusal, fault } = failureOf(request, error, 'form post failed')
    if (refusal) return sendProblem(request, reply, refusal.status, refusal.code, refusal.message)
    return sendProblem(request, reply, 500, ErrorCode.INTERNAL, 'Internal server error', { digest: fault.digest, error })
  })

  fastify.post(
    '/*',
    {
      bodyLimit: ACTION_BODY_LIMIT,
      // Counted before the body is read (server/framework/plugins/rate-limit.ts); a 429 goes to sendActionFailure.
      ...(opts.rateLimit ? { config: { rateLimit: opts.rateLimit } } : {}),
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
      // A form is on a tidy path (a GET of an untidy one redirects): nothing to run here,
      // and no answer could go back to it.
      if (tidyPathname(location.pathname) !== location.pathname) return sendProblem(request, reply, 404, ErrorCode.NOT_FOUND, NO_PAGE)
      const multipart = request.isMultipart()
      if (!multipart && !(request.body instanceof URLSearchParams)) {
        return sendProblem(request, reply, 415, ErrorCode.UNSUPPORTED_MEDIA_TYPE, URLENCODED_ONLY)
      }
      const view = pages.view()
      const { definition } = view
      // A path no route matches is the not-found page, in the root layout: the root's
      // actions (the theme choice) work there too.
      const match = definition.router.match(location.pathname)
      const allow = allowedMethods(definition.router, match?.id)
      if (!allow.includes('POST')) {
        if (!match) return sendProblem(request, reply, 404, ErrorCode.NOT_FOUND, NO_PAGE)
        reply.header('allow', allow)
        return sendProblem(request, reply, 405, ErrorCode.METHOD_NOT_ALLOWED, 'This page has no actions to post to.')
      }
      const findAction = (name: string | null) => actionNamed(definition, match, name)

      let form: ReceivedForm = { fields: request.body as URLSearchParams, files: new Map(), refusedFiles: {} }
      if (multipart) {
        // Only a page whose actions take files reads multipart: for the others it is refused unread.
        if (Object.keys(match?.route.files ?? {}).length === 0) {
          return sendProblem(request, reply, 415, ErrorCode.UNSUPPORTED_MEDIA_TYPE, URLENCODED_ONLY)
        }
        try {
          form = await receiveMultipart(request, {
            dir: uploads.dir,
            maxBytes: uploads.maxBytes,
            maxTextBytes: ACTION_BODY_LIMIT,
            // A browser without JavaScript can show a wrong type only as the page again, next to the field.
            readPastWrongType: !wantsJson(request),
            fileFieldsOf: (name) => {
              const found = findAction(name)
              if (!('handler' in found)) throw new UploadRefusal(found)
              if (!found.files) throw new UploadRefusal({ status: 415, code: ErrorCode.UNSUPPORTED_MEDIA_TYPE, message: `This action takes no files: its form must be sent as ${FORM_TYPE}.` })
              return found.files
            },
          })
        } catch (error) {
          if (!isUploadRefusal(error)) throw error
          request.log.info({ code: error.code, status: error.status, field: error.field }, 'form with files refused')
          return sendProblem(request, reply, error.status, error.code, error.message)
        }
      }
      // Files go before any answer does: a client that has the answer finds them gone.
      const release = () => removeFiles([...form.files.values()].map((file) => file.path))
      try {
        const found = findAction(form.fields.get(ACTION_FIELD))
        if (!('handler' in found)) {
          await release()
          return await sendProblem(request, reply, found.status, found.code, found.message)
        }
        return await answerForm(request, reply, view, location, match, found, form, release)
      } finally {
        // Whatever happened on the way (nothing should): no file outlives its request.
        await release()
      }
    },
  )

  /** Runs the action a form names with the form's fields and files (released once it is over), and answers its outcome. */
  async function answerForm(
    request: FastifyRequest,
    reply: FastifyReply,
    view: AppView,
    location: CanonicalLocation,
    match: RouteMatch | null,
    found: FoundAction,
    form: ReceivedForm,
    release: () => Promise<void>,
  ) {
    const { name } = found
    const values = Object.fromEntries(found.fields.map((field) => [field, form.fields.get(field) ?? '']))
    const files = Object.fromEntries(Object.keys(found.files ?? {}).map((field) => [field, form.files.get(field) ?? null]))
    if (Object.keys(form.refusedFiles).length > 0) {
      await release()
      return answerInvalid(request, reply, view, location, { action: name, fieldErrors: form.refusedFiles, values })
    }
    // What the action does to the answer (cookies, headers) goes out whatever its outcome.
    const response = collectResponse(request)
    let outcome: ActionOutcome<string>
    try {
      outcome = await found.handler(
        // Typed per action by the route table; here, any action's.
        { ...values, ...files } as ActionInput<string, string>,
        {
          params: match?.params ?? {},
          searchParams: new URLSearchParams(location.search),
          request,
          cookies: response.cookies,
          response: response.control,
          session: response.session,
        },
      )
    } catch (error) {
      await release()
      response.applyTo(reply)
      if (isRedirect(error)) return answerSuccess(request, reply, error.location)
      if (isNotFound(error)) return sendProblem(request, reply, 404, ErrorCode.NOT_FOUND, NO_PAGE)
      if (isHttpError(error) && error.status < 500) {
        return sendProblem(request, reply, error.status, error.code, error.expose ? error.message : 'The request was refused.')
      }
      const { digest } = faultOf(request, error, 'action failed', {
        ...(match ? { routeId: match.id } : {}),
        ...(found.owner.kind === 'layout' ? { layoutId: found.owner.id } : {}),
        action: name,
      })
      return sendProblem(request, reply, 500, ErrorCode.INTERNAL, 'Internal server error', { digest, error })
    }
    await release()

    response.applyTo(reply)
    if (outcome.ok) return answerSuccess(request, reply, outcome.redirect ?? location.key)
    return answerInvalid(request, reply, view, location, {
      action: name,
      fieldErrors: outcome.fieldErrors as Record<string, string>,
      ...(outcome.formError ? { formError: outcome.formError } : {}),
      values,
    })
  }

  /** A refused submission: the errors as JSON for a script, else the page again with them (422). */
  async function answerInvalid(request: FastifyRequest, reply: FastifyReply, view: AppView, location: CanonicalLocation, state: ActionState) {
    reply.header('cache-control', NO_STORE)
    if (wantsJson(request)) return reply.code(422).send({ ok: false, ...state } satisfies ActionResponse)
    // No JavaScript: the page again, with the errors next to their fields.
    const resolution = await pages.resolve(request, view, location)
    resolution.response?.applyTo(reply)
    if (resolution.kind === 'redirect') return reply.redirect(resolution.location, 303)
    const page = resolution.payload
    const payload = page.kind === 'page' ? { ...page, status: 422 as const, action: state } : page
    return pages.sendDocument(reply, view, location, payload)
  }
}

type Handlers = Readonly<Record<string, ActionHandler<any, string, string>>>

/** An action a form named: where it is declared, its fields and file fields, and its handler. */
interface FoundAction {
  readonly name: string
  readonly owner: ActionOwner
  readonly fields: readonly string[]
  readonly files: FileFieldsDecl | undefined
  readonly handler: ActionHandler<any, string, string>
}

/**
 * The action `name` a form posts to a page, from its route or a layout around it, or
 * why there is none to run (own properties only, so `toString` is not an action).
 */
function actionNamed(definition: AnyAppDefinition, match: RouteMatch | null, name: string | null): FoundAction | Refusal {
  if (!name) return { status: 400, code: ErrorCode.NO_ACTION, message: `The form names no action (its ${ACTION_FIELD} field is missing).` }
  const owner = actionOwner(definition.router, match?.id, name)
  const handlers = (
    owner?.kind === 'route' ? definition.serverPages[owner.id]?.actions : owner ? definition.serverLayouts[owner.id]?.actions : undefined
  ) as Handlers | undefined
  const handler = owner && handlers && Object.hasOwn(handlers, name) ? handlers[name] : undefined
  if (!owner || !handler) {
    return { status: 404, code: ErrorCode.UNKNOWN_ACTION, message: `This page has no action named ${JSON.stringify(name.slice(0, 100))}.` }
  }
  // Files are a route's (a layout's form is on every page: it takes none).
  const files = owner.kind === 'route' ? match?.route.files : undefined
  return { name, owner, fields: owner.fields, handler, files: files && Object.hasOwn(files, name) ? files[name] : undefined }
}

/** Success: 303 See Other for a browser form, JSON for a script (a fetch would follow the 303). */
function answerSuccess(request: FastifyRequest, reply: FastifyReply, to: string) {
  const location = sameSiteLocation(to)
  reply.header('cache-control', NO_STORE)
  if (wantsJson(request)) return reply.send({ ok: true, redirect: location } satisfies ActionResponse)
  return reply.redirect(location, 303)
}
