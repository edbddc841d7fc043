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
 *    and sends the document, the page data, or the 500 page when rendering failed.
 *
 * The view (pages and renderer) is read once per request: always the same in
 * production, the latest edit in development.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { BuildManifest } from '../../../shared/framework/build-manifest.js'
import { BUILD_ID_HEADER, DATA_PREFIX, LAYOUTS_HELD_HEADER } from '../../../shared/framework/constants.js'
import { SERVER_ERROR_TEXT } from '../../../shared/framework/error-texts.js'
import type { CanonicalLocation } from '../../../shared/framework/location.js'
import type { BrowserMonitoringConfig } from '../../../shared/framework/monitoring.js'
import type { ErrorPayload, RedirectPayload, ScreenPayload } from '../../../shared/framework/page-payload.js'
import type { ReadyPage } from '../../../client/framework/view/page-source.js'
import type { AnyLayout } from '../../../shared/framework/route-table.js'
import type { ServerLayout } from '../page-definition.js'
import { MALFORMED_URL, NO_STORE } from '../http-errors.js'
import type { AppView } from './app-view.js'
import { etagFor, isCacheable, isNotModified, STATIC_CACHE_CONTROL } from './conditional.js'
import { htmlAttributes } from './document.js'
import { renderShellErrorDocument } from '../error-documents.js'
import { faultOf, reportFault } from '../failures.js'
import type { PageRender } from './render-page.js'
import { devErrorOf, locationOfTarget, resolvePage, type Resolution, type ResolveOptions } from './resolve-page.js'
import { originForm } from '../../../shared/framework/location.js'
import { documentFor, encodedDocumentFor, StaticCache, staticEtag, type StaticData, type StaticPage } from './static-pages.js'
import { compressingStream, negotiateEncoding } from '../compression.js'
import type { InlineStyle } from './inline-style.js'
import { pipeline } from 'node:stream'

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
}

export function createPageResponder(opts: PageResponderOptions): PageResponder {
  const { manifest, development } = opts
  const { buildId } = manifest
  const anotherBuild = anotherBuildPayload(buildId)
  const staticPages = new StaticCache<StaticPage>()
  const staticData = new StaticCache<StaticData>()

  /** True when `payload` may be cached (by us or anyone): a static route's page, outside development. */
  const mayCache = (payload: ScreenPayload) => !development && isCacheable(payload)

  function isStreamed(view: AppView, payload: ScreenPayload): boolean {
    return payload.kind === 'page' && view.definition.router.routes[payload.routeId]?.stream === true
  }

  function rememberData(key: string, payload: ScreenPayload): StaticData {
    const data = { json: JSON.stringify(payload), etag: etagFor('data', payload) }
    staticData.set(key, data)
    return data
  }

  /** The payload with its route's module: the page, or the boundaries of a route whose page failed. */
  async function readyPage(view: AppView, payload: ScreenPayload): Promise<ReadyPage> {
    if (payload.routeId === undefined) return { payload }
    const { default: module } = await view.definition.clientPages[payload.routeId]!()
    return { payload, module }
  }

  function pageRender(
    view: AppView,
    page: ReadyPage,
    location: CanonicalLocation,
    nonce: PageRender['nonce'],
    htmlAttributes: PageRender['htmlAttributes'],
  ): PageRender {
    const { router, clientLayouts } = view.definition
    return {
      manifest,
      ...(opts.inlineStyle ? { inlineStyle: opts.inlineStyle } : {}),
      page,
      location,
      nonce,
      development,
      htmlAttributes,
      layouts: { router, modules: clientLayouts },
      ...(opts.monitoring ? { monitoring: opts.monitoring } : {}),
    }
  }

  /** A render that failed: reported with its digest; the 500 page (with the overlay in development) goes out. */
  function sendRenderFailure(reply: FastifyReply, payload: ScreenPayload, error: unknown): FastifyReply {
    const { digest } = faultOf(reply.request, error, 'render failed', payload.kind === 'page' ? { routeId: payload.routeId } : {})
    const overlay = development ? { error: devErrorOf(error), nonce: reply.cspNonce.script, styleNonce: reply.cspNonce.style } : undefined
    return reply
      .code(500)
      .header('cache-control', NO_STORE)
      .type('text/html; charset=utf-8')
      .send(renderShellErrorDocument(SERVER_ERROR_TEXT, digest, overlay))
  }

  /**
   * What a document we encode ourselves varies on: the encoding when we compress, and,
   * for a shared (static) answer, the cookies the product's `<html>` attributes come
   * from (the root layout's `documentAttributes`: the theme here). Lower-case tokens:
   * @fastify/compress adds its own `accept-encoding` unless it finds it so.
   */
  function documentVary(shared: boolean): string | undefined {
    return [opts.compression && 'accept-encoding', shared && 'cookie'].filter(Boolean).join(', ') || undefined
  }

  /** The encoding to send `request` (none when compression is off or the client takes none). */
  const encodingFor = (request: FastifyRequest) => (opts.compression ? negotiateEncoding(request.headers['accept-encoding']) : undefined)

  async function sendStaticPage(request: FastifyRequest, reply: FastifyReply, page: StaticPage) {
    const attributes = documentAttributesOf(opts.view(), request)
    const encoding = encodingFor(request)
    // The cookies pick the product's `<html>` attributes (the colours) and the client its
    // encoding: a shared cache must key on both.
    reply
      .header('cache-control', STATIC_CACHE_CONTROL)
      .header('vary', documentVary(true)!)
    if (isNotModified(request, reply, staticEtag(page.etag, attributes, encoding))) return reply.code(304).send()
    reply.code(200).type('text/html; charset=utf-8')
    if (!encoding) return reply.send(documentFor(page, attributes))
    return reply.header('content-encoding', encoding).send(await encodedDocumentFor(page, attributes, encoding))
  }

  function sendStaticData(request: FastifyRequest, reply: FastifyReply, data: StaticData) {
    reply.header('cache-control', STATIC_CACHE_CONTROL)
    // @fastify/compress encodes the JSON by the same negotiation: each encoding its own ETag.
    if (opts.compression) reply.header('vary', 'accept-encoding')
    if (isNotModified(request, reply, staticEtag(data.etag, '', encodingFor(request)))) return reply.code(304).send()
    return reply.code(200).type('application/json; charset=utf-8').send(data.json)
  }

  async function sendDocument(reply: FastifyReply, view: AppView, location: CanonicalLocation, payload: ScreenPayload) {
    const page = await readyPage(view, payload)
    const cacheable = mayCache(payload)
    const streamed = isStreamed(view, payload)
    // A static route's page is rendered once, without a nonce, and kept.
    if (cacheable && !streamed) {
      const result = view.renderer.renderWhole(pageRender(view, page, location, undefined, ''))
      if (!result.ok) return sendRenderFailure(reply, payload, result.error)
      const cached: StaticPage = { template: result.body, etag: etagFor('html', payload), encoded: new Map() }
      staticPages.set(location.key, cached)
      rememberData(location.key, payload) // the client's next navigation here needs no loader run either
      return sendStaticPage(reply.request, reply, cached)
    }
    const cacheControl = cacheable ? STATIC_CACHE_CONTROL : NO_STORE
    const render = pageRender(view, page, location, reply.cspNonce, documentAttributesOf(view, reply.request))
    if (streamed) {
      const aborted = new AbortController()
      reply.raw.on('close', () => {
        if (!reply.raw.writableFinished) aborted.abort()
      })
      const result = await view.renderer.renderStream(render, {
        timeoutMs: opts.renderTimeoutMs,
        signal: aborted.signal,
        onRecoverableError: (error, digest) => {
          reportFault(reply.request, error, 'render failed', digest, payload.kind === 'page' ? { routeId: payload.routeId } : {})
        },
      })
      if (!result.ok) return sendRenderFailure(reply, payload, result.error)
      reply.code(payload.status).header('cache-control', cacheControl).type('text/html; charset=utf-8')
      const encoding = encodingFor(reply.request)
      const vary = documentVary(cacheable)
      if (vary) reply.header('vary', vary)
      if (!encoding) return reply.send(result.body)
      // Compressed here, each chunk flushed: the shell still goes out before the rest.
      const compressed = compressingStream(encoding)
      pipeline(result.body, compressed, () => {})
      return reply.header('content-encoding', encoding).send(compressed)
    }
    const result = view.renderer.renderWhole(render)
    if (!result.ok) return sendRenderFailure(reply, payload, result.error)
    // Encoded once: a string would be scanned for its byte length, then encoded again to be written.
    const body = Buffer.from(result.body)
    return reply.code(payload.status).header('cache-control', cacheControl).type('text/html; charset=utf-8').send(body)
  }

  function resolve(request: FastifyRequest, view: AppView, location: CanonicalLocation, options?: ResolveOptions) {
    return resolvePage({ definition: view.definition, buildId, development }, request, location, options)
  }

  return {
    buildId,
    development,
    view: opts.view,
    resolve,
    sendDocument,

    async respondHtml(request, reply) {
      const location = locationOfTarget(request.url)
      if (!location) return request.server.refusals.send(request, reply, MALFORMED_URL)
      const cached = staticPages.get(location.key)
      if (cached) return sendStaticPage(request, reply, cached)
      const view = opts.view()
      const resolution = await resolve(request, view, location)
      resolution.response?.applyTo(reply)
      if (resolution.kind === 'redirect') {
        return reply.header('cache-control', NO_STORE).redirect(resolution.location, resolution.status)
      }
      return sendDocument(reply, view, location, resolution.payload)
    },

    async respondData(request, reply) {
      if (fromAnotherBuild(request, buildId)) return reply.header('cache-control', NO_STORE).code(409).send(anotherBuild)
      const location = locationOfTarget(originForm(request.url).slice(DATA_PREFIX.length))
      if (!location) return request.server.refusals.send(request, reply, MALFORMED_URL)
      const cached = staticData.get(location.key)
      if (cached) return sendStaticData(request, reply, cached)
      const resolution = await resolve(request, opts.view(), location, { held: heldLayouts(request) })
      resolution.response?.applyTo(reply)
      if (resolution.kind === 'redirect') {
        // A fetch would follow a real 3xx on its own; the client must see the target
        // to navigate to it, so the redirect travels as data.
        const redirect: RedirectPayload = { kind: 'redirect', status: resolution.status, location: resolution.location, buildId }
        return reply.header('cache-control', NO_STORE).send(redirect)
      }
      const { payload } = resolution
      if (mayCache(payload)) return sendStaticData(request, reply, rememberData(location.key, payload))
      return reply.header('cache-control', NO_STORE).code(payload.status).send(payload)
    },
  }
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
const MAX_HELD_LAYOUTS = 16

/**
 * The layouts the browser says it holds fresh. Only a hint: an id that is not a layout
 * of the page is ignored, and a malformed or repeated header means none.
 */
function heldLayouts(request: FastifyRequest): ReadonlySet<string> | undefined {
  const header = request.headers[LAYOUTS_HELD_HEADER]
  if (typeof header !== 'string' || header.length > 1024) return undefined
  const ids = header.split(',', MAX_HELD_LAYOUTS).map((id) => id.trim()).filter((id) => id !== '')
  return ids.length > 0 ? new Set(ids) : undefined
}

/**
 * The product's attributes for this visitor's `<html>`, as HTML: what the root layout's
 * server module says (`documentAttributes`, from the request's cookies), none without one.
 */
function documentAttributesOf(view: AppView, request: FastifyRequest): string {
  const { router, serverLayouts } = view.definition
  const root = Object.values(router.layouts as Readonly<Record<string, AnyLayout>>).find((layout) => !layout.parent)
  const hook = root && (serverLayouts as Readonly<Record<string, ServerLayout<any> | undefined>>)[root.id]?.documentAttributes
  return hook ? htmlAttributes(hook({ cookies: request.cookies })) : ''
}
