/**
 * Decides what a page URL shows, before a byte is sent: match the route, run its
 * loader, and turn the outcome into a payload (or a redirect). The HTML and the
 * page-data endpoints both call this, so they answer the same URL the same way.
 */
import type { FastifyRequest } from 'fastify'
import { digestOf } from '../../shared/digest.js'
import { isHttpError, isNotFound, isRedirect, type RedirectStatus } from '../../shared/errors.js'
import type { DevError, ErrorPayload, PagePayload, ScreenPayload } from '../../shared/page-payload.js'
import { reportServerError } from '../monitoring/error-reporter.js'
import type { AnyAppDefinition } from '../page-definition.js'
import { originForm, parseTarget, tidyPathname, type CanonicalLocation } from '../../shared/location.js'
import { sameSiteLocation } from '../http-errors.js'
import { collectResponse, type CollectedResponse } from '../response-control.js'

export type Resolution = (
  | { readonly kind: 'screen'; readonly payload: ScreenPayload }
  | { readonly kind: 'redirect'; readonly status: RedirectStatus; readonly location: string }
) & {
  /** What a dynamic page's loader did to the answer (cookies, headers), whatever its outcome. */
  readonly response?: CollectedResponse
}

/**
 * The canonical location of a request target as Node hands it over; undefined when
 * its path is malformed. Node reads the request line as latin1, so a client that sent
 * UTF-8 unencoded arrives as one character per byte: those bytes are read as UTF-8
 * again (and refused when they are not UTF-8).
 */
export function locationOfTarget(rawTarget: string): CanonicalLocation | undefined {
  const target = originForm(rawTarget)
  if (/[^\x00-\x7f]/.test(target)) {
    const utf8 = Buffer.from(target, 'latin1').toString('utf8')
    if (utf8.includes('\uFFFD')) return undefined
    return parseTarget(utf8)
  }
  return parseTarget(target)
}

/** What resolving a page depends on besides the request. */
export interface ResolveContext {
  readonly definition: AnyAppDefinition
  readonly buildId: string
  /** `npm run dev`: an unexpected failure's message and stack go into its payload. */
  readonly development: boolean
}

export async function resolvePage(resolveContext: ResolveContext, request: FastifyRequest, location: CanonicalLocation): Promise<Resolution> {
  const { definition, buildId } = resolveContext
  const { pathname, search } = location
  // One URL per page: `/about/`, `//about` and `/x/../about` answer with a permanent
  // redirect to `/about`. The tidy path starts with a single `/` and an encoded
  // segment, so the redirect cannot leave the site (`//host`, `/\host`).
  const tidy = tidyPathname(pathname)
  if (tidy !== pathname) return { kind: 'redirect', status: 308, location: sameSiteLocation(tidy + (search ? `?${search}` : '')) }
  const match = definition.router.match(pathname)
  if (!match) return { kind: 'screen', payload: { kind: 'not-found', status: 404, buildId } }

  const page = definition.serverPages[match.id]!
  // A static page's answer is shared: its loader gets neither cookies nor the answer.
  const response = match.route.mode === 'static' ? undefined : collectResponse(request)
  const context = { params: match.params as never, searchParams: new URLSearchParams(search), request }
  const withResponse = <R extends Resolution>(resolution: R): R => (response ? { ...resolution, response } : resolution)
  try {
    const data = await page.loader(
      // The route's type decides what its loader may use; here, any route is served.
      (response ? { ...context, cookies: response.cookies, response: response.control, session: response.session } : context) as never,
    )
    const payload: PagePayload = {
      kind: 'page',
      status: 200,
      buildId,
      routeId: match.id,
      mode: match.route.mode,
      params: match.params,
      data,
    }
    return withResponse({ kind: 'screen', payload })
  } catch (error) {
    if (isRedirect(error)) return withResponse({ kind: 'redirect', status: error.status, location: sameSiteLocation(error.location) })
    if (isNotFound(error)) return withResponse({ kind: 'screen', payload: { kind: 'not-found', status: 404, buildId } })
    return withResponse({ kind: 'screen', payload: errorPayload(error, resolveContext, request, match.id) })
  }
}

/** A loader's failure as the user may see it; unexpected ones are logged with their digest. */
function errorPayload(error: unknown, context: ResolveContext, request: FastifyRequest, routeId: string): ErrorPayload {
  const { buildId } = context
  if (isHttpError(error) && error.status < 500) {
    request.log.info({ routeId, status: error.status, err: error }, 'loader refused the request')
    return { kind: 'error', status: error.status, buildId, ...(error.expose ? { message: error.message } : {}) }
  }
  const status = isHttpError(error) ? error.status : 500
  const digest = digestOf(error)
  reportServerError(request, error, 'loader failed', { digest, routeId })
  return { kind: 'error', status, digest, buildId, ...(context.development ? { devError: devErrorOf(error) } : {}) }
}

/** The whole error, for development's overlay (never called in production). */
export function devErrorOf(error: unknown): DevError {
  if (error instanceof Error) return { message: error.message, ...(error.stack ? { stack: error.stack } : {}) }
  return { message: String(error) }
}
