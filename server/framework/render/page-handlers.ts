/**
 * The handlers of the two page request kinds: the document (GET a page path) and the page
 * data (GET `/_data<page path>`), as React Router's handleDocumentRequest and
 * handleDataRequest. The pages and actions plugins route here.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { BuildManifest } from '../../../shared/framework/build-manifest.js'
import { BUILD_ID_HEADER, DATA_PREFIX, CACHED_LAYOUTS_HEADER } from '../../../shared/framework/constants.js'
import { SERVER_ERROR_TEXT } from '../../../shared/framework/error-texts.js'
import type { CanonicalLocation } from '../../../shared/framework/location.js'
import type { BrowserMonitoringConfig } from '../../../shared/framework/monitoring.js'
import type { ErrorPayload, RedirectPayload, RenderPayload } from '../../../shared/framework/page-payload.js'
import { errors } from '../error-registry.js'
import { NO_STORE } from '../error-responses.js'
import type { AppView } from './app-view.js'
import { devOverlayFor, renderShellErrorDocument } from '../error-documents.js'
import { serverError } from '../failures.js'
import { devErrorOf, locationOfTarget, resolvePage, type Resolution, type ResolveOptions } from './resolve-page.js'
import { originForm } from '../../../shared/framework/location.js'
import { StaticCache, type StaticData, type StaticPage } from './static-pages.js'
import { mayCache, rememberData, sendDocument, sendStaticData, sendStaticPage, type PageSender } from './send-document.js'
import type { InlineStyle } from './inline-style.js'
import { sendDeferredData } from './deferred-response.js'
import { pageAnswer, toBrowserJson } from '../server-only.js'
import { labelPageRoute } from '../metrics/route-label.js'
import type { Metrics } from '../metrics/metrics.js'

export interface PageHandlersOptions {
  /** The same in production; the latest edit in development. */
  readonly view: () => AppView
  readonly manifest: BuildManifest
  readonly inlineStyle?: InlineStyle
  /** Pages are never cached (an edit must show on the next request); failures go to the error overlay. */
  readonly development: boolean
  readonly metrics: Metrics
  readonly renderTimeoutMs: number
  readonly compression: boolean
  /** Absent without SENTRY_DSN. */
  readonly monitoring?: BrowserMonitoringConfig
}

export interface PageHandlers {
  readonly buildId: string
  readonly development: boolean
  handleDocumentRequest(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply>
  handleDataRequest(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply>
  /** Ask once per request and pass it on: in development it changes with each edit. */
  view(): AppView
  /** What a location shows (a form post's page, rendered again after a client error). */
  resolve(request: FastifyRequest, view: AppView, location: CanonicalLocation): Promise<Resolution>
  /** Sends a payload as this location's HTML document (a form post's 422 page, or its error page). */
  sendDocument(reply: FastifyReply, view: AppView, location: CanonicalLocation, payload: RenderPayload): Promise<FastifyReply>
  /** For the metrics (characters, close to bytes for HTML and JSON). */
  staticPagesKept(): { readonly entries: number; readonly bytes: number }
}

export function createPageHandlers(opts: PageHandlersOptions): PageHandlers {
  const { manifest, development } = opts
  const { buildId } = manifest

  function sendRenderFailure(reply: FastifyReply, payload: RenderPayload, error: unknown): FastifyReply {
    const { digest } = serverError(reply.request, error, 'render failed', payload.kind === 'page' ? { routeId: payload.routeId } : {})
    const overlay = development ? devOverlayFor(reply, devErrorOf(error)) : undefined
    return reply
      .code(500)
      .header('cache-control', NO_STORE)
      .type('text/html; charset=utf-8')
      .send(renderShellErrorDocument(SERVER_ERROR_TEXT, digest, overlay))
  }

  const sender: PageSender = {
    opts,
    staticPages: new StaticCache<StaticPage>((page) => page.template.length),
    staticData: new StaticCache<StaticData>((data) => data.json.length),
    sendRenderFailure,
  }
  const context: PageRequestContext = {
    sender,
    buildId,
    anotherBuild: anotherBuildPayload(buildId),
    resolve: (request, view, location, options) =>
      resolvePage({ definition: view.definition, buildId, development, deferTimeoutMs: opts.renderTimeoutMs }, request, location, options),
  }
  return {
    buildId,
    development,
    view: opts.view,
    resolve: context.resolve,
    sendDocument: (reply, view, location, payload) => sendDocument(sender, reply, view, location, payload),
    handleDocumentRequest: (request, reply) => handleDocumentRequest(context, request, reply),
    handleDataRequest: (request, reply) => handleDataRequest(context, request, reply),
    staticPagesKept: () => ({
      entries: sender.staticPages.size + sender.staticData.size,
      bytes: sender.staticPages.bytes + sender.staticData.bytes,
    }),
  }
}

interface PageRequestContext {
  readonly sender: PageSender
  readonly buildId: string
  readonly anotherBuild: ErrorPayload
  resolve(request: FastifyRequest, view: AppView, location: CanonicalLocation, options?: ResolveOptions): Promise<Resolution>
}

async function handleDocumentRequest({ sender, resolve }: PageRequestContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const location = locationOfTarget(request.url)
  if (!location) return request.server.errorResponses.send(request, reply, errors.MALFORMED_URL())
  const cached = sender.staticPages.get(location.pageKey)
  if (cached) {
    noteKeptPage(request, cached)
    return sendStaticPage(sender, request, reply, cached)
  }
  const view = sender.opts.view()
  const resolution = await resolve(request, view, location)
  await resolution.response?.applyTo(reply)
  if (resolution.kind === 'redirect') {
    return reply.header('cache-control', NO_STORE).redirect(resolution.location, resolution.status)
  }
  return sendDocument(sender, reply, view, location, resolution.payload)
}

async function handleDataRequest(
  { sender, resolve, buildId, anotherBuild }: PageRequestContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  if (fromAnotherBuild(request, buildId)) return reply.header('cache-control', NO_STORE).code(409).send(anotherBuild)
  const location = locationOfTarget(originForm(request.url).slice(DATA_PREFIX.length))
  if (!location) return request.server.errorResponses.send(request, reply, errors.MALFORMED_URL())
  const cached = sender.staticData.get(location.pageKey)
  if (cached) {
    noteKeptPage(request, cached)
    return sendStaticData(sender, request, reply, cached)
  }
  const resolution = await resolve(request, sender.opts.view(), location, { cachedLayouts: cachedLayouts(request) })
  await resolution.response?.applyTo(reply)
  if (resolution.kind === 'redirect') {
    // A fetch would follow a real 3xx on its own; the client must see the target
    // to navigate to it, so the redirect travels as data.
    const redirect: RedirectPayload = { kind: 'redirect', status: resolution.status, location: resolution.location, buildId }
    return reply.header('cache-control', NO_STORE).send(redirect)
  }
  const { payload } = resolution
  const json = payloadJson(sender, request, payload)
  if (typeof json !== 'string') return reply.header('cache-control', NO_STORE).code(json.status).send(json)
  if (mayCache(sender, payload)) return sendStaticData(sender, request, reply, rememberData(sender, location.pageKey, payload, json))
  if (payload.deferred) return sendDeferredData(reply, payload, json, sender.opts.compression)
  return reply.header('cache-control', NO_STORE).code(payload.status).type('application/json; charset=utf-8').send(json)
}

/**
 * The payload as JSON for the browser; a payload it cannot be (a server-only value in it,
 * a value JSON cannot carry) is a server error, answered as a loader's failure is.
 */
function payloadJson(sender: PageSender, request: FastifyRequest, payload: RenderPayload): string | ErrorPayload {
  try {
    return toBrowserJson(payload, pageAnswer(payload))
  } catch (error) {
    const { digest } = serverError(request, error, 'page data refused', payload.routeId !== undefined ? { routeId: payload.routeId } : {})
    const devError = sender.opts.development ? { devError: devErrorOf(error) } : {}
    return { kind: 'error', status: 500, digest, buildId: payload.buildId, ...devError }
  }
}

function noteKeptPage(request: FastifyRequest, kept: { readonly routeId: string | undefined }): void {
  request.server.metrics.staticPage(true)
  labelPageRoute(request, kept.routeId)
}

function fromAnotherBuild(request: FastifyRequest, buildId: string): boolean {
  const header = request.headers[BUILD_ID_HEADER]
  return typeof header === 'string' && header !== buildId
}

/** No loader has run: the browser loads the page again as a document. */
const anotherBuildPayload = (buildId: string): ErrorPayload => ({
  kind: 'error',
  status: 409,
  message: 'This page was loaded from another version of the app: it is loaded again.',
  buildId,
})

/** A page sits in a few layouts, not hundreds. */
const MAX_CACHED_LAYOUTS = 16

/** The layouts the browser has fresh: only a hint, an id that is not the page's layout is ignored. */
function cachedLayouts(request: FastifyRequest): ReadonlySet<string> | undefined {
  const header = request.headers[CACHED_LAYOUTS_HEADER]
  if (typeof header !== 'string' || header.length > 1024) return undefined
  const ids = header
    .split(',', MAX_CACHED_LAYOUTS)
    .map((id) => id.trim())
    .filter((id) => id !== '')
  return ids.length > 0 ? new Set(ids) : undefined
}
