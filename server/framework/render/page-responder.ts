/**
 * Page delivery, from request to answer, in one place (docs/architecture.md, "Page
 * delivery"). Built once by app.ts from the loaded pages, the client build's manifest,
 * the mode and the monitoring config; the pages and actions plugins route requests
 * here and keep only their HTTP checks. For one request it:
 *
 * 1. reads the canonical location (a malformed one is refused with 400);
 * 2. answers a static route from memory when it can (ETag, 304);
 * 3. resolves the page once (resolve-page.ts: match, loader, outcome);
 * 4. picks the cache policy, renders (render-page.tsx returns a result, never sends)
 *    and sends the document (send-document.ts), the page data, or the 500 page when
 *    rendering failed.
 *
 * The view (pages and renderer) is read once per request: always the same in
 * production, the latest edit in development.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { BuildManifest } from '../../../shared/framework/build-manifest.js'
import { BUILD_ID_HEADER, DATA_PREFIX, CACHED_LAYOUTS_HEADER } from '../../../shared/framework/constants.js'
import { SERVER_ERROR_TEXT } from '../../../shared/framework/error-texts.js'
import type { CanonicalLocation } from '../../../shared/framework/location.js'
import type { BrowserMonitoringConfig } from '../../../shared/framework/monitoring.js'
import type { ErrorPayload, RedirectPayload, ScreenPayload } from '../../../shared/framework/page-payload.js'
import { errors } from '../error-registry.js'
import { NO_STORE } from '../error-responses.js'
import type { AppView } from './app-view.js'
import { renderShellErrorDocument } from '../error-documents.js'
import { serverError } from '../failures.js'
import { devErrorOf, locationOfTarget, resolvePage, type Resolution, type ResolveOptions } from './resolve-page.js'
import { originForm } from '../../../shared/framework/location.js'
import { StaticCache, type StaticData, type StaticPage } from './static-pages.js'
import { mayCache, rememberData, sendDocument, sendStaticData, sendStaticPage, type Delivery } from './send-document.js'
import type { InlineStyle } from './inline-style.js'
import { sendDeferredData } from './deferred-answer.js'
import { labelPageRoute } from '../metrics/route-label.js'
import type { Metrics } from '../metrics/metrics.js'

export interface PageResponderOptions {
  /** The pages and their renderer: always the same in production, the latest edit in development. */
  readonly view: () => AppView
  readonly manifest: BuildManifest
  /** The app's stylesheet, written into every document; absent in development. */
  readonly inlineStyle?: InlineStyle
  /**
   * `npm run dev`: pages are never cached (an edit must show on the next request) and
   * failures carry their message and stack to the browser's error overlay.
   */
  readonly development: boolean
  readonly metrics: Metrics
  /** A streamed render still running after this long is aborted. */
  readonly renderTimeoutMs: number
  /** Compress what goes out (COMPRESSION): static pages once, streamed pages as they stream. */
  readonly compression: boolean
  /** The browser's monitoring config, written into every page; absent without SENTRY_DSN. */
  readonly monitoring?: BrowserMonitoringConfig
}

/** What the plugins ask of page delivery. */
export interface PageResponder {
  readonly buildId: string
  /** `npm run dev`: failures carry their message and stack to the browser's error overlay. */
  readonly development: boolean
  /** GET a page path: the HTML document. */
  respondHtml(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply>
  /** GET `/_data<page path>`: the same page as JSON. */
  respondData(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply>
  /** The view of this request (pages and renderer); ask once, pass it on. */
  view(): AppView
  /** What a location shows (a form post's page, rendered again after a refusal). */
  resolve(request: FastifyRequest, view: AppView, location: CanonicalLocation): Promise<Resolution>
  /** Sends a payload as this location's HTML document (a form post's 422 page, or its error page). */
  sendDocument(reply: FastifyReply, view: AppView, location: CanonicalLocation, payload: ScreenPayload): Promise<FastifyReply>
  /** Documents and page data kept in memory, for the metrics (characters, close to bytes for HTML and JSON). */
  staticPagesKept(): { readonly entries: number; readonly bytes: number }
}

export function createPageResponder(opts: PageResponderOptions): PageResponder {
  const { manifest, development } = opts
  const { buildId } = manifest

  /** A render that failed: reported with its digest; the 500 page (with the overlay in development) goes out. */
  function sendRenderFailure(reply: FastifyReply, payload: ScreenPayload, error: unknown): FastifyReply {
    const { digest } = serverError(reply.request, error, 'render failed', payload.kind === 'page' ? { routeId: payload.routeId } : {})
    const overlay = development ? { error: devErrorOf(error), nonce: reply.cspNonce.script, styleNonce: reply.cspNonce.style } : undefined
    return reply
      .code(500)
      .header('cache-control', NO_STORE)
      .type('text/html; charset=utf-8')
      .send(renderShellErrorDocument(SERVER_ERROR_TEXT, digest, overlay))
  }

  const delivery: Delivery = {
    opts,
    staticPages: new StaticCache<StaticPage>((page) => page.template.length),
    staticData: new StaticCache<StaticData>((data) => data.json.length),
    sendRenderFailure,
  }
  const responder: Responder = {
    delivery,
    buildId,
    anotherBuild: anotherBuildPayload(buildId),
    resolve: (request, view, location, options) =>
      resolvePage({ definition: view.definition, buildId, development, deferTimeoutMs: opts.renderTimeoutMs }, request, location, options),
  }
  return {
    buildId,
    development,
    view: opts.view,
    resolve: responder.resolve,
    sendDocument: (reply, view, location, payload) => sendDocument(delivery, reply, view, location, payload),
    respondHtml: (request, reply) => respondHtml(responder, request, reply),
    respondData: (request, reply) => respondData(responder, request, reply),
    staticPagesKept: () => ({
      entries: delivery.staticPages.size + delivery.staticData.size,
      bytes: delivery.staticPages.bytes + delivery.staticData.bytes,
    }),
  }
}

/** What answering a request needs besides sending: resolving its location, this server's build. */
interface Responder {
  readonly delivery: Delivery
  readonly buildId: string
  /** The answer to a data request from another build. */
  readonly anotherBuild: ErrorPayload
  resolve(request: FastifyRequest, view: AppView, location: CanonicalLocation, options?: ResolveOptions): Promise<Resolution>
}

/** GET a page path: a static route's page from memory, or the page resolved and rendered. */
async function respondHtml({ delivery, resolve }: Responder, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const location = locationOfTarget(request.url)
  if (!location) return request.server.errorResponses.send(request, reply, errors.MALFORMED_URL())
  const cached = delivery.staticPages.get(location.key)
  if (cached) return sendKeptPage(request, cached, () => sendStaticPage(delivery, request, reply, cached))
  const view = delivery.opts.view()
  const resolution = await resolve(request, view, location)
  await resolution.response?.applyTo(reply)
  if (resolution.kind === 'redirect') {
    return reply.header('cache-control', NO_STORE).redirect(resolution.location, resolution.status)
  }
  return sendDocument(delivery, reply, view, location, resolution.payload)
}

/** GET `/_data<page path>`: the same page as JSON, a static route's kept after its first answer. */
async function respondData(
  { delivery, resolve, buildId, anotherBuild }: Responder,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  if (fromAnotherBuild(request, buildId)) return reply.header('cache-control', NO_STORE).code(409).send(anotherBuild)
  const location = locationOfTarget(originForm(request.url).slice(DATA_PREFIX.length))
  if (!location) return request.server.errorResponses.send(request, reply, errors.MALFORMED_URL())
  const cached = delivery.staticData.get(location.key)
  if (cached) return sendKeptPage(request, cached, () => sendStaticData(delivery, request, reply, cached))
  const resolution = await resolve(request, delivery.opts.view(), location, { cachedLayouts: cachedLayouts(request) })
  await resolution.response?.applyTo(reply)
  if (resolution.kind === 'redirect') {
    // A fetch would follow a real 3xx on its own; the client must see the target
    // to navigate to it, so the redirect travels as data.
    const redirect: RedirectPayload = { kind: 'redirect', status: resolution.status, location: resolution.location, buildId }
    return reply.header('cache-control', NO_STORE).send(redirect)
  }
  const { payload } = resolution
  if (mayCache(delivery, payload)) return sendStaticData(delivery, request, reply, rememberData(delivery, location.key, payload))
  if (payload.deferred) return sendDeferredData(reply, payload, delivery.opts.compression)
  return reply.header('cache-control', NO_STORE).code(payload.status).send(payload)
}

function sendKeptPage<R>(request: FastifyRequest, kept: { readonly routeId: string | undefined }, send: () => R): R {
  request.server.metrics.staticPage(true)
  labelPageRoute(request, kept.routeId)
  return send()
}

/** A data request from a browser running another build than this server's (BUILD_ID_HEADER); without the header, none. */
function fromAnotherBuild(request: FastifyRequest, buildId: string): boolean {
  const header = request.headers[BUILD_ID_HEADER]
  return typeof header === 'string' && header !== buildId
}

/** The answer to it: no loader has run, only this server's build id (the browser loads the page as a document). */
const anotherBuildPayload = (buildId: string): ErrorPayload => ({
  kind: 'error',
  status: 409,
  message: 'This page was loaded from another version of the app: it is loaded again.',
  buildId,
})

/** At most this many layout ids are read from the header: a page sits in a few layouts, not hundreds. */
const MAX_CACHED_LAYOUTS = 16

/**
 * The layouts the browser says it has cached fresh. Only a hint: an id that is not a layout
 * of the page is ignored, and a malformed or repeated header means none.
 */
function cachedLayouts(request: FastifyRequest): ReadonlySet<string> | undefined {
  const header = request.headers[CACHED_LAYOUTS_HEADER]
  if (typeof header !== 'string' || header.length > 1024) return undefined
  const ids = header
    .split(',', MAX_CACHED_LAYOUTS)
    .map((id) => id.trim())
    .filter((id) => id !== '')
  return ids.length > 0 ? new Set(ids) : undefined
}
