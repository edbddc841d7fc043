/**
 * Sending a page: a static route's page is rendered once and kept with its data (ETag,
 * 304); any other page is rendered per request, whole or streamed.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ReadyPage } from '../../../client/framework/view/page-source.js'
import type { CanonicalLocation } from '../../../shared/framework/location.js'
import type { RenderPayload } from '../../../shared/framework/page-payload.js'
import type { AnyLayout } from '../../../shared/framework/route-table.js'
import { compressingStream, negotiateEncoding } from '../compression.js'
import { reportWithDigest } from '../failures.js'
import { NO_STORE } from '../error-responses.js'
import type { ServerLayout } from '../page-definition.js'
import type { AppView } from './app-view.js'
import { etagFor, isCacheable, isNotModified, STATIC_CACHE_CONTROL, staticCacheHeaders, STREAMED_HEADER } from './conditional.js'
import { htmlAttributes } from './document.js'
import type { PageHandlersOptions } from './page-handlers.js'
import type { PageRender } from './render-page.js'
import { documentFor, encodedDocumentFor, type StaticCache, staticEtag, type StaticData, type StaticPage } from './static-pages.js'
import { pipeline } from 'node:stream'
import { timeStep, timeSync } from '../metrics/timing.js'
import type { DeferredOutcome } from '../../../shared/framework/deferred.js'
import { deferredOutcomes, isCrawler, outcomeScript } from './deferred-response.js'
import { pageAnswer, toBrowserJson } from '../server-only.js'

export interface PageSender {
  readonly opts: PageHandlersOptions
  /** By page key. */
  readonly staticPages: StaticCache<StaticPage>
  readonly staticData: StaticCache<StaticData>
  readonly sendRenderFailure: (reply: FastifyReply, payload: RenderPayload, error: unknown) => FastifyReply
}

/** By us or anyone: a static route's page, outside development. */
export const mayCache = (sender: PageSender, payload: RenderPayload) => !sender.opts.development && isCacheable(payload)

function isStreamed(view: AppView, payload: RenderPayload): boolean {
  return payload.kind === 'page' && view.definition.router.routes[payload.routeId]?.stream === true
}

/** `json`: the payload as the page-data answer has it already; else made here (the document's static page). */
export function rememberData(
  sender: PageSender,
  key: string,
  payload: RenderPayload,
  json = toBrowserJson(payload, pageAnswer(payload)),
): StaticData {
  const data = { json, etag: etagFor('data', payload), routeId: payload.routeId }
  sender.staticData.set(key, data)
  sender.opts.metrics.staticPage(false)
  return data
}

async function readyPage(view: AppView, payload: RenderPayload): Promise<ReadyPage> {
  if (payload.routeId === undefined) return { payload }
  const { default: module } = await view.definition.clientPages[payload.routeId]!()
  return { payload, module }
}

function pageRender(
  opts: PageHandlersOptions,
  view: AppView,
  page: ReadyPage,
  location: CanonicalLocation,
  nonce: PageRender['nonce'],
  htmlAttributes: PageRender['htmlAttributes'],
): PageRender {
  const { router, clientLayouts } = view.definition
  return {
    manifest: opts.manifest,
    ...(opts.inlineStyle ? { inlineStyle: opts.inlineStyle } : {}),
    page,
    location,
    nonce,
    development: opts.development,
    htmlAttributes,
    layouts: { router, modules: clientLayouts },
    ...(opts.monitoring ? { monitoring: opts.monitoring } : {}),
  }
}

/**
 * A shared (static) response varies on the cookies the `<html>` attributes come from.
 * Lower-case: @fastify/compress adds its own `accept-encoding` unless it finds it so.
 */
function documentVary(compression: boolean, shared: boolean): string | undefined {
  return [compression && 'accept-encoding', shared && 'cookie'].filter(Boolean).join(', ') || undefined
}

const encodingFor = (compression: boolean, request: FastifyRequest) =>
  compression ? negotiateEncoding(request.headers['accept-encoding']) : undefined

export async function sendStaticPage(sender: PageSender, request: FastifyRequest, reply: FastifyReply, page: StaticPage) {
  const { opts } = sender
  const attributes = documentAttributesOf(opts.view(), request)
  const encoding = encodingFor(opts.compression, request)
  reply.headers(staticCacheHeaders(routeOf(opts, page.routeId))).header('vary', documentVary(opts.compression, true)!)
  if (isNotModified(request, reply, staticEtag(page.etag, attributes, encoding))) return reply.code(304).send()
  reply.code(200).type('text/html; charset=utf-8')
  if (!encoding) return reply.send(documentFor(page, attributes))
  return reply.header('content-encoding', encoding).send(await encodedDocumentFor(page, attributes, encoding))
}

export function sendStaticData(sender: PageSender, request: FastifyRequest, reply: FastifyReply, data: StaticData) {
  const { compression } = sender.opts
  reply.headers(staticCacheHeaders(routeOf(sender.opts, data.routeId)))
  // @fastify/compress encodes the JSON by the same negotiation: each encoding its own ETag.
  if (compression) reply.header('vary', 'accept-encoding')
  if (isNotModified(request, reply, staticEtag(data.etag, '', encodingFor(compression, request)))) return reply.code(304).send()
  return reply.code(200).type('application/json; charset=utf-8').send(data.json)
}

export async function sendDocument(sender: PageSender, reply: FastifyReply, view: AppView, location: CanonicalLocation, payload: RenderPayload) {
  const page = await readyPage(view, payload)
  const cacheable = mayCache(sender, payload)
  const deferred = deferredOutcomes(payload)
  const crawler = deferred.length > 0 && isCrawler(reply.request)
  const parts: PageRender['deferred'] = crawler ? { streamed: false, scripts: await settledScripts(deferred, reply.cspNonce?.script) } : undefined
  const streamed = isStreamed(view, payload) || (deferred.length > 0 && !crawler)
  if (cacheable && !streamed) {
    const result = renderWholeTimed(reply.request, view, pageRender(sender.opts, view, page, location, undefined, ''), payload)
    if (!result.ok) return sender.sendRenderFailure(reply, payload, result.error)
    const cached: StaticPage = { template: result.body, etag: etagFor('html', payload), encoded: new Map(), routeId: payload.routeId }
    sender.staticPages.set(location.pageKey, cached)
    sender.opts.metrics.staticPage(false)
    rememberData(sender, location.pageKey, payload) // the client's next navigation here needs no loader run either
    return sendStaticPage(sender, reply.request, reply, cached)
  }
  const render = {
    ...pageRender(sender.opts, view, page, location, reply.cspNonce, documentAttributesOf(view, reply.request)),
    ...(parts ? { deferred: parts } : deferred.length > 0 ? { deferred: { streamed: true as const } } : {}),
  }
  if (streamed) return sendStreamed(sender, reply, view, render, payload, cacheable, deferred)
  const cacheControl = cacheable ? STATIC_CACHE_CONTROL : NO_STORE
  const result = renderWholeTimed(reply.request, view, render, payload)
  if (!result.ok) return sender.sendRenderFailure(reply, payload, result.error)
  // Encoded once: a string would be scanned for its byte length, then encoded again to be written.
  const body = Buffer.from(result.body)
  return reply.code(payload.status).header('cache-control', cacheControl).type('text/html; charset=utf-8').send(body)
}

async function sendStreamed(
  sender: PageSender,
  reply: FastifyReply,
  view: AppView,
  render: PageRender,
  payload: RenderPayload,
  cacheable: boolean,
  deferred: ReadonlyArray<Promise<DeferredOutcome>>,
) {
  const { opts } = sender
  const aborted = new AbortController()
  reply.raw.on('close', () => {
    if (reply.raw.writableFinished) return
    // Anyone can drop a connection: a debug line, never an error or a report.
    reply.request.log.debug('client closed the connection before the page was sent')
    aborted.abort()
  })
  const result = await timeStep(
    reply.request,
    'render',
    routeIdOf(payload),
    '',
    view.renderer.renderStream(render, {
      timeoutMs: opts.renderTimeoutMs,
      signal: aborted.signal,
      deferred,
      onRecoverableError: (error, digest) => {
        reportWithDigest(reply.request, error, 'render failed', digest, payload.kind === 'page' ? { routeId: payload.routeId } : {})
      },
    }),
  )
  if (!result.ok) {
    // The client left before the shell was ready: no one to send a page to.
    if (aborted.signal.aborted) return reply.hijack()
    return sender.sendRenderFailure(reply, payload, result.error)
  }
  reply
    .code(payload.status)
    .headers(cacheable ? staticCacheHeaders(routeOf(opts, routeIdOf(payload))) : { 'cache-control': NO_STORE })
    .header(STREAMED_HEADER, 'no')
    .type('text/html; charset=utf-8')
  const encoding = encodingFor(opts.compression, reply.request)
  const vary = documentVary(opts.compression, cacheable)
  if (vary) reply.header('vary', vary)
  if (!encoding) return reply.send(result.body)
  // Compressed here, each chunk flushed, so the shell goes out before the rest.
  const compressed = compressingStream(encoding)
  pipeline(result.body, compressed, () => {})
  return reply.header('content-encoding', encoding).send(compressed)
}

function routeOf(opts: PageHandlersOptions, routeId: string | undefined) {
  return routeId === undefined ? undefined : opts.view().definition.router.routes[routeId]
}

function routeIdOf(payload: RenderPayload): string | undefined {
  return payload.kind === 'page' ? payload.routeId : undefined
}

function renderWholeTimed(request: FastifyRequest, view: AppView, render: PageRender, payload: RenderPayload) {
  return timeSync(request, 'render', routeIdOf(payload), () => view.renderer.renderWhole(render))
}

async function settledScripts(outcomes: ReadonlyArray<Promise<DeferredOutcome>>, nonce: string | undefined): Promise<string> {
  return (await Promise.all(outcomes)).map((outcome) => outcomeScript(outcome, nonce)).join('')
}

type DocumentAttributesHook = NonNullable<ServerLayout<any>['documentAttributes']>

/** The root layout's hook, found once per view (a view is replaced whole when the code changes). */
const documentAttributeHooks = new WeakMap<AppView, DocumentAttributesHook | null>()

/** The root layout's `documentAttributes` for this visitor, as HTML. */
function documentAttributesOf(view: AppView, request: FastifyRequest): string {
  let hook = documentAttributeHooks.get(view)
  if (hook === undefined) {
    const { router, serverLayouts } = view.definition
    const root = Object.values(router.layouts as Readonly<Record<string, AnyLayout>>).find((layout) => !layout.parent)
    hook = (root && (serverLayouts as Readonly<Record<string, ServerLayout<any> | undefined>>)[root.id]?.documentAttributes) ?? null
    documentAttributeHooks.set(view, hook)
  }
  return hook ? htmlAttributes(hook({ cookies: request.cookies })) : ''
}
