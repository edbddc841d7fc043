/**
 * Sends a resolved page as an HTML document: loads the route's client module (to
 * render it), picks the cache policy, and streams. Page GETs, the 422 re-render after
 * a refused form, and the error pages of form posts all go out through here.
 */
import type { FastifyReply } from 'fastify'
import type { BuildManifest } from '../../shared/build-manifest.js'
import type { BrowserMonitoringConfig } from '../../shared/monitoring.js'
import type { ScreenPayload } from '../../shared/page-payload.js'
import type { ReadyPage } from '../../client/runtime/page-source.js'
import type { AnyAppDefinition } from '../page-definition.js'
import type { CanonicalLocation } from '../../shared/location.js'
import type { AppView } from './app-view.js'
import { isCacheable, STATIC_CACHE_CONTROL } from './conditional.js'
import type { StreamPageOptions } from './render-page.js'
import { NONCE_PLACEHOLDER } from './static-pages.js'
import { NO_STORE } from '../http-errors.js'

export interface DocumentContext {
  /** The pages and their renderer: always the same in production, the latest edit in development. */
  readonly view: () => AppView
  readonly manifest: BuildManifest
  /**
   * `npm run dev`: pages are never cached (an edit must show on the next request) and
   * failures carry their message and stack to the browser's error overlay.
   */
  readonly development: boolean
  readonly renderTimeoutMs: number
  /** The browser's monitoring config, written into every page; absent without SENTRY_DSN. */
  readonly monitoring?: BrowserMonitoringConfig
}

/**
 * Who may keep a copy. Only a static route's page is the same for everyone; the rest
 * (dynamic pages, 404s, errors, answers to a form) is per request.
 */
export function cachePolicy(context: DocumentContext, payload: ScreenPayload): string {
  return mayCache(context, payload) ? STATIC_CACHE_CONTROL : NO_STORE
}

/** True when `payload` may be cached (by us or anyone): a static route's page, outside development. */
export function mayCache(context: DocumentContext, payload: ScreenPayload): boolean {
  return !context.development && isCacheable(payload)
}

/** True when the route of `payload` asked to be streamed (`stream: true` in the table). */
export function isStreamed(definition: AnyAppDefinition, payload: ScreenPayload): boolean {
  return payload.kind === 'page' && definition.router.routes[payload.routeId]?.stream === true
}

async function optionsFor(
  context: DocumentContext,
  view: AppView,
  payload: ScreenPayload,
  location: CanonicalLocation,
  nonce: string,
  styleNonce: string,
): Promise<StreamPageOptions> {
  let page: ReadyPage = { payload }
  if (payload.kind === 'page') {
    const { default: module } = await view.definition.clientPages[payload.routeId]!()
    page = { payload, module }
  }
  return {
    manifest: context.manifest,
    page,
    location,
    nonce,
    headers: { 'cache-control': cachePolicy(context, payload) },
    timeoutMs: context.renderTimeoutMs,
    ...(context.development ? { development: { styleNonce } } : {}),
    ...(context.monitoring ? { monitoring: context.monitoring } : {}),
  }
}

/**
 * Renders a static route's page with a nonce placeholder, for the static-page cache;
 * undefined when rendering failed (the 500 page has been sent).
 */
export async function renderStaticTemplate(
  reply: FastifyReply,
  context: DocumentContext,
  payload: ScreenPayload,
  location: CanonicalLocation,
): Promise<string | undefined> {
  const view = context.view()
  return view.renderer.renderDocument(reply, await optionsFor(context, view, payload, location, NONCE_PLACEHOLDER, NONCE_PLACEHOLDER))
}

export async function sendPageDocument(
  reply: FastifyReply,
  context: DocumentContext,
  payload: ScreenPayload,
  location: CanonicalLocation,
): Promise<FastifyReply> {
  const view = context.view()
  const options = await optionsFor(context, view, payload, location, reply.cspNonce.script, reply.cspNonce.style)
  if (isStreamed(view.definition, payload)) await view.renderer.streamPage(reply, options)
  else view.renderer.sendRenderedPage(reply, options)
  return reply
}
