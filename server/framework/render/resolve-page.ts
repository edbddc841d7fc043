/**
 * Decides what a page URL shows, before a byte is sent: match the route, run the guards
 * and loaders, turn the outcome into a payload or a redirect. Documents and page data both
 * call this, so they respond to the same URL the same way.
 */
import { labelPageRoute } from '../metrics/route-label.js'
import { timeStep } from '../metrics/timing.js'
import type { FastifyRequest } from 'fastify'
import { HttpError, type RedirectStatus } from '../../../shared/framework/errors.js'
import { parseSearch, SearchParamError } from '../../../shared/framework/search-params.js'
import type { DevError, ErrorPayload, PagePayload, RenderPayload } from '../../../shared/framework/page-payload.js'
import { classify } from '../failures.js'
import type { AnyAppDefinition } from '../page-definition.js'
import { originForm, parseTarget, splitTarget, tidyPathname, type CanonicalLocation } from '../../../shared/framework/location.js'
import { sameSiteLocation } from '../error-responses.js'
import { runGuards, UNGUARDED, type GuardOutcome } from '../guards.js'
import { searchDeclOf, type AnyLayout, type RouteMatch } from '../../../shared/framework/route-table.js'
import { openResponse, type CollectedResponse } from '../response-control.js'
import { LoadedData, PartDeadline } from './deferred-parts.js'

export type Resolution = (
  | { readonly kind: 'render'; readonly payload: RenderPayload }
  | { readonly kind: 'redirect'; readonly status: RedirectStatus; readonly location: string }
) & {
  /** Cookies and headers a dynamic page's loaders set, whatever the outcome. */
  readonly response?: CollectedResponse
}

/**
 * Undefined when the path is malformed. Node reads the request line as latin1, so raw
 * UTF-8 arrives as one character per byte: it is decoded again (refused if not UTF-8).
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

/**
 * The query as sent, for a redirect that tidies only the path (the canonical form reads it
 * as UTF-8, so `%E9` would become U+FFFD in a permanent redirect). What a Location may not
 * hold raw is percent-encoded, a `%` that starts no escape included.
 */
function sentQuery(request: FastifyRequest): string {
  return splitTarget(originForm(request.url))
    .search.slice(1)
    .replace(/%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]/gu, percentEncoded)
}

/** A Latin-1 byte as `%XX`; a wider character (an injected or HTTP/2 target) as UTF-8. */
function percentEncoded(char: string): string {
  const code = char.codePointAt(0)!
  if (code <= 0xff) return `%${code.toString(16).toUpperCase().padStart(2, '0')}`
  return code >= 0xd800 && code <= 0xdfff ? '%EF%BF%BD' : encodeURIComponent(char)
}

export interface ResolveContext {
  readonly definition: AnyAppDefinition
  readonly buildId: string
  /** A server error's message and stack go into its payload. */
  readonly development: boolean
  readonly deferTimeoutMs: number
}

export interface ResolveOptions {
  /**
   * Layouts whose data the browser has fresh: their loaders are skipped. Dynamic pages
   * only: a static page's response is shared, so it is always whole.
   */
  readonly cachedLayouts?: ReadonlySet<string>
}

type Settled = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown }

/**
 * What a loader throws is a result like its data. Called right away, not in a later
 * microtask, so a failure's stack shows the request kind that ran it.
 */
function settle(run: () => unknown): Promise<Settled> {
  const failed = (error: unknown): Settled => ({ ok: false, error })
  try {
    return Promise.resolve(run()).then((value): Settled => ({ ok: true, value }), failed)
  } catch (error) {
    return Promise.resolve(failed(error))
  }
}

export async function resolvePage(
  resolveContext: ResolveContext,
  request: FastifyRequest,
  location: CanonicalLocation,
  options: ResolveOptions = {},
): Promise<Resolution> {
  const { definition } = resolveContext
  const { pathname, search } = location
  // One URL per page: `/about/`, `//about` and `/x/../about` redirect to `/about`. The
  // tidy path starts with a single `/`, so the redirect cannot leave the site (`//host`).
  const tidy = tidyPathname(pathname)
  if (tidy !== pathname) return { kind: 'redirect', status: 308, location: sameSiteLocation(tidy + (search ? `?${sentQuery(request)}` : '')) }
  const { router } = definition
  const match = router.match(pathname)
  const chain = router.layoutsOf(match?.id)
  const routeId = match?.id
  labelPageRoute(request, routeId)

  // A static page's response is shared: its loaders get neither cookies nor the response.
  const perRequest = match ? match.route.mode === 'dynamic' : chain.some((layout) => layout.mode === 'dynamic')
  const response = perRequest ? await openResponse(request) : undefined
  const withResponse = <R extends Resolution>(resolution: R): R => (response ? { ...resolution, response } : resolution)
  const perRequestContext = response ? { cookies: response.cookies, response: response.control, session: response.session } : {}
  const cachedLayouts = match?.route.mode === 'dynamic' ? options.cachedLayouts : undefined

  // Guards first, whatever the browser has cached: a loader beneath a guard that did not
  // pass never runs (the layouts above it still load, to frame the response).
  const guarding = runGuards(request, definition, match, location)
  const guards = guarding === UNGUARDED ? guarding : await guarding
  const open = guards.ok ? chain : chain.slice(0, guards.above)

  const deadline = new PartDeadline(resolveContext.deferTimeoutMs)
  const loaders = runLoaders(definition, request, match, open, guards, {
    searchParams: new URLSearchParams(search),
    cachedLayouts,
    perRequestContext,
  })
  const loaded = new LoadedData(request, routeId !== undefined ? { routeId } : {}, deadline)
  try {
    return withResponse(outcomeOf(resolveContext, request, match, open, guards, await loaders, loaded, response))
  } finally {
    loaded.release()
  }
}

function outcomeOf(
  resolveContext: ResolveContext,
  request: FastifyRequest,
  match: RouteMatch | null,
  open: readonly AnyLayout[],
  guards: GuardOutcome,
  { layoutResults, pageResult }: Awaited<ReturnType<typeof runLoaders>>,
  loaded: LoadedData,
  response: CollectedResponse | undefined,
): Resolution {
  const { buildId } = resolveContext
  const routeId = match?.id
  const inRoute = routeId !== undefined ? { routeId } : {}
  for (const [i, layout] of open.entries()) {
    const result = layoutResults[i]
    if (!result) continue
    const error = result.ok ? loaded.addLayout(layout, result.value) : result.error
    if (error !== undefined) {
      return failure(error, resolveContext, request, { ...inRoute, failedLayout: layout.id, ...loaded.payloadFields() })
    }
  }
  if (!guards.ok) {
    const site = guards.layoutId !== undefined ? { failedLayout: guards.layoutId } : {}
    return failure(guards.error, resolveContext, request, { ...inRoute, ...site, ...loaded.payloadFields() }, 'guard')
  }
  if (!match || !pageResult) return { kind: 'render', payload: { kind: 'not-found', status: 404, buildId, ...loaded.payloadFields() } }
  const page = pageResult.ok ? loaded.page(match, pageResult.value) : { error: pageResult.error }
  if ('error' in page) return failure(page.error, resolveContext, request, { ...inRoute, ...loaded.payloadFields() })
  const payload: PagePayload = {
    kind: 'page',
    status: 200,
    buildId,
    routeId: match.id,
    mode: match.route.mode,
    params: match.params,
    data: page.data,
    ...loaded.payloadFields(),
    ...(response?.changesState ? { once: true as const } : {}),
    ...identityOf(response),
  }
  return { kind: 'render', payload }
}

interface LoaderInputs {
  readonly searchParams: URLSearchParams
  readonly cachedLayouts: ReadonlySet<string> | undefined
  /** Cookies, the response and the session for a dynamic page; nothing for a static one. */
  readonly perRequestContext: object
}

/** Every loader at once, so the slowest decides how long it takes, not their sum. */
async function runLoaders(
  definition: ResolveContext['definition'],
  request: FastifyRequest,
  match: RouteMatch | null,
  open: readonly AnyLayout[],
  guards: GuardOutcome,
  { searchParams, cachedLayouts, perRequestContext }: LoaderInputs,
) {
  const layoutJobs = open.map((layout) => {
    const loader = definition.serverLayouts[layout.id]?.loader
    if (!loader || cachedLayouts?.has(layout.id)) return undefined
    const guard = guards.layouts.get(layout.id)
    const job = settle(() => loader((layout.mode === 'dynamic' ? { request, ...perRequestContext, guard } : { request }) as never))
    return timeStep(request, 'loader', match?.id, layout.id, job)
  })
  const pageJob =
    match && guards.ok
      ? timeStep(
          request,
          'loader',
          match.id,
          'page',
          settle(() =>
            // The route's type decides what its loader may use; here, any route is served.
            definition.serverPages[match.id]!.loader({
              params: match.params,
              // A value the route does not take is its 400, shown in its layouts like a loader's.
              search: searchOf(match, searchParams),
              searchParams,
              request,
              ...perRequestContext,
              guard: guards.route,
            } as never),
          ),
        )
      : undefined
  return { layoutResults: await Promise.all(layoutJobs), pageResult: await pageJob }
}

/** Where a failure is shown: the layout `failedLayout`, else the page of `routeId`. */
type ErrorSite = Pick<ErrorPayload, 'routeId' | 'failedLayout' | 'layouts' | 'deferred'>

interface FailureSource {
  readonly routeId?: string
  readonly layoutId?: string
}

function failure(error: unknown, context: ResolveContext, request: FastifyRequest, site: ErrorSite, thrower: Thrower = 'loader'): Resolution {
  const { buildId } = context
  const source: FailureSource = {
    ...(site.routeId !== undefined ? { routeId: site.routeId } : {}),
    ...(site.failedLayout !== undefined ? { layoutId: site.failedLayout } : {}),
  }
  const failed = classify(request, error, `${thrower} failed`, source, 'page')
  switch (failed.type) {
    case 'redirect':
      return { kind: 'redirect', status: failed.status, location: sameSiteLocation(failed.location) }
    case 'not-found':
      return { kind: 'render', payload: { kind: 'not-found', status: 404, buildId, ...site } }
    case 'client-error': {
      const { status, code, message } = failed.error
      // A 5xx of ours (a session store that does not respond) is worth a warning; a 4xx is the visitor's.
      if (status >= 500) request.log.warn({ ...source, status, code }, `${thrower} refused the request`)
      else request.log.info({ ...source, status, err: error }, `${thrower} refused the request`)
      return { kind: 'render', payload: { kind: 'error', status, buildId, ...(failed.exposed ? { message } : {}), ...site } }
    }
    case 'server-error': {
      const devError = context.development ? { devError: devErrorOf(error) } : {}
      return { kind: 'render', payload: { kind: 'error', status: failed.status, digest: failed.digest, buildId, ...devError, ...site } }
    }
  }
}

type Thrower = 'loader' | 'guard'

/** For development's error overlay. */
export function devErrorOf(error: unknown): DevError {
  if (error instanceof Error) return { message: error.message, ...(error.stack ? { stack: error.stack } : {}) }
  return { message: String(error) }
}

/** A value the route does not take throws a 400 naming the parameter. */
export function searchOf(match: RouteMatch, searchParams: URLSearchParams): Record<string, unknown> {
  try {
    return parseSearch(searchDeclOf(match.route), searchParams)
  } catch (error) {
    if (error instanceof SearchParamError) throw new HttpError(400, error.message)
    throw error
  }
}

/** Whom a dynamic page is rendered for; none said when the session store could not be read (its forms then act for the session as it is). */
function identityOf(response: CollectedResponse | undefined): { identity?: string } {
  if (!response) return {}
  try {
    return { identity: response.identity }
  } catch {
    return {}
  }
}
