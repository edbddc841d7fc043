/**
 * Guards (docs/architecture.md, "Guards"): a layout or a route declared with
 * `guard: guarded<Value>()` has a guard function in its server module. For every
 * request that reaches a page beneath it (the document, the page data whatever the
 * browser says it holds, HEAD, a conditional request, a form post before its body's
 * files are read) the guards of the page's layouts and route run root to leaf, once per
 * request, before any loader or action beneath them. A guard passes by returning a
 * value (handed to the loaders and actions beneath it as `guard`), or stops the request
 * by throwing `redirect()` (`redirectToSignIn()` adds the return path), `notFound()` or
 * an `HttpError` (403).
 */
import { timeStep } from './metrics/timing.js'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { originForm, splitTarget, type CanonicalLocation } from '../../shared/framework/location.js'
import { redirect, type RedirectError } from '../../shared/framework/errors.js'
import { errors } from './error-registry.js'
import { classify } from './failures.js'
import { RETURN_PARAM } from '../../shared/framework/return-path.js'
import type { AnyLayout, RouteMatch } from '../../shared/framework/route-table.js'
import type { AnyAppDefinition } from './page-definition.js'
import { openResponse } from './response-control.js'
import type { ResponseControl } from './response-control.js'
import type { SessionControl } from './session.js'

/** What a guard is given: the request, its session and cookies, and where the visitor was going. */
export interface GuardContext {
  readonly request: FastifyRequest
  /** The params of the page asked for (none for a path no route matches). */
  readonly params: Readonly<Record<string, string>>
  readonly searchParams: URLSearchParams
  /** The page's path and query as asked for (the page's, for page data and form posts): where to come back to. */
  readonly location: string
  readonly cookies: Readonly<Record<string, string | undefined>>
  readonly session: SessionControl
  readonly response: ResponseControl
}

/** A guard: returns what it passes to everything beneath it, or throws to stop the request. */
export type Guard<Value = unknown> = (context: GuardContext) => Value | Promise<Value>

/**
 * Declares a guard once, to use on layouts, routes and /api routes alike:
 * `export const signedIn = defineGuard(({ session, location }) => ...)`.
 */
export function defineGuard<Value>(guard: Guard<Value>): Guard<Value> {
  return guard
}

/**
 * The redirect to a sign-in page that brings the visitor back: `/login?next=/account`.
 * In /api, where a script cannot be sent to a page, a guard's redirect is a 401.
 */
export function redirectToSignIn(signInPath: string, context: Pick<GuardContext, 'location'>): RedirectError {
  return redirect(`${signInPath}?${RETURN_PARAM}=${encodeURIComponent(context.location)}`, 303)
}

/** What the guards of one request decided. */
export type GuardOutcome =
  | {
      readonly ok: true
      /** The value in scope for each layout of the page (its own guard's, else the nearest above), by layout id. */
      readonly layouts: ReadonlyMap<string, unknown>
      /** The value in scope for the page's loader and actions. */
      readonly route: unknown
    }
  | {
      readonly ok: false
      /** The value in scope for each layout above the guard that stopped it (their loaders still run). */
      readonly layouts: ReadonlyMap<string, unknown>
      readonly error: unknown
      /** The layout whose guard stopped the request; undefined when it was the route's. */
      readonly layoutId: string | undefined
      /** How many layouts of the chain, from the root, are above the guard that stopped it (their loaders may run). */
      readonly above: number
    }

/** What no guard decided: a page nothing guards (most pages: answered without a wait). */
export const UNGUARDED: GuardOutcome = { ok: true, layouts: new Map(), route: undefined }

/** One outcome per request: a form post's refusal renders the page again without asking twice. */
const outcomes = new WeakMap<FastifyRequest, Promise<GuardOutcome>>()

/** True when anything around the page (or the page itself) is guarded. */
export function isGuarded(chain: readonly AnyLayout[], match: RouteMatch | null): boolean {
  return chain.some((layout) => layout.guard) || Boolean(match?.route.guard)
}

/**
 * Runs the guards around the page a request reaches, root to leaf, once per request.
 * With none, it passes at once (no promise: `UNGUARDED`) and opens nothing.
 */
export function runGuards(
  request: FastifyRequest,
  definition: AnyAppDefinition,
  match: RouteMatch | null,
  location: CanonicalLocation,
): GuardOutcome | Promise<GuardOutcome> {
  if (!isGuarded(definition.router.layoutsOf(match?.id), match)) return UNGUARDED
  let outcome = outcomes.get(request)
  if (!outcome) {
    outcome = timeStep(request, 'guard', match?.id, '', decide(request, definition, match, location))
    outcomes.set(request, outcome)
  }
  return outcome
}

async function decide(
  request: FastifyRequest,
  definition: AnyAppDefinition,
  match: RouteMatch | null,
  location: CanonicalLocation,
): Promise<GuardOutcome> {
  const chain = definition.router.layoutsOf(match?.id)
  const layouts = new Map<string, unknown>()
  const response = await openResponse(request)
  const context: GuardContext = {
    request,
    params: match?.params ?? {},
    searchParams: new URLSearchParams(location.search),
    location: location.pageKey,
    cookies: response.cookies,
    session: response.session,
    response: response.control,
  }
  let value: unknown
  for (const [i, layout] of chain.entries()) {
    if (layout.guard) {
      const guard = definition.serverLayouts[layout.id]?.guard as Guard | undefined
      const passed = await pass(guard, context)
      if (!passed.ok) return { ok: false, layouts, error: passed.error, layoutId: layout.id, above: i }
      value = passed.value
    }
    layouts.set(layout.id, value)
  }
  if (match?.route.guard) {
    const passed = await pass(definition.serverPages[match.id]?.guard as Guard | undefined, context)
    if (!passed.ok) return { ok: false, layouts, error: passed.error, layoutId: undefined, above: chain.length }
    value = passed.value
  }
  return { ok: true, layouts, route: value }
}

type Passed = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown }

async function pass(guard: Guard | undefined, context: GuardContext): Promise<Passed> {
  // The start checks every declared guard has its function: this is a bug, and it fails closed.
  if (!guard) return { ok: false, error: new Error('A guarded layout or route has no guard function') }
  try {
    return { ok: true, value: await guard(context) }
  } catch (error) {
    return { ok: false, error }
  }
}

/**
 * Each declared guard has its function, and no function guards what the table does not
 * say is guarded (the types ask for both; this catches what they cannot see, such as a
 * fixture built at run time). Throws naming the layout or route.
 */
export function checkGuards(definition: AnyAppDefinition): void {
  const check = (kind: 'Layout' | 'Route', id: string, declared: boolean, guard: unknown) => {
    if (declared && typeof guard !== 'function') {
      throw new Error(`${kind} "${id}" is declared guarded but its server module gives no guard function`)
    }
    if (!declared && guard !== undefined) {
      throw new Error(`${kind} "${id}" has a guard function, but the table does not declare it guarded (guard: guarded<Value>())`)
    }
  }
  for (const [id, layout] of Object.entries(definition.router.layouts as Record<string, AnyLayout>)) {
    check('Layout', id, Boolean(layout.guard), definition.serverLayouts[id]?.guard)
  }
  for (const [id, route] of Object.entries(definition.router.routes as Record<string, RouteMatch['route']>)) {
    check('Route', id, Boolean(route.guard), definition.serverPages[id]?.guard)
  }
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** An /api route's guard (server/framework/guards.ts): it runs before the body is read. */
    guard?: Guard<any>
  }
}

/** What each /api request's guard passed, read by `guardValue`. */
const apiValues = new WeakMap<FastifyRequest, { readonly guard: Guard<any>; readonly value: unknown }>()

/**
 * The route-level `onRequest` hook of an /api route with `config: { guard }`: runs the
 * guard before the body is read, and answers what it stops in the API's JSON error shape.
 * A guard's redirect (to a sign-in page) is a 401 here: a script cannot be sent to a page.
 */
export async function guardApiRequest(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  const guard = request.routeOptions.config.guard
  if (!guard) return undefined
  const response = await openResponse(request)
  const { pathname, search } = splitTarget(originForm(request.url))
  try {
    const value = await guard({
      request,
      params: (request.params ?? {}) as Record<string, string>,
      searchParams: new URLSearchParams(search),
      location: pathname + search,
      cookies: response.cookies,
      session: response.session,
      response: response.control,
    })
    apiValues.set(request, { guard, value })
    return undefined
  } catch (error) {
    await response.applyTo(reply)
    // Returning the reply: an async hook that returns nothing lets the handler run too.
    const failure = classify(request, error, 'guard failed')
    if (failure.type === 'redirect') return request.server.errorResponses.send(request, reply, errors.SIGN_IN_REQUIRED())
    return request.server.errorResponses.sendFailure(request, reply, failure)
  }
}

/**
 * What `guard` passed for this /api request: `const account = guardValue(request, signedIn)`.
 * Throws when the route is not guarded by it (a route whose config forgot the guard).
 */
export function guardValue<Value>(request: FastifyRequest, guard: Guard<Value>): Value {
  const passed = apiValues.get(request)
  if (!passed || passed.guard !== guard)
    throw new Error("This route is not guarded by that guard: add it to the route's config ({ config: { guard } })")
  return passed.value as Value
}
