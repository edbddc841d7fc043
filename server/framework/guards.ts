/**
 * Guards (docs/architecture.md, "Guards"): for every request that reaches a page (the
 * document, the page data whatever the browser has cached, a form post before its files are
 * read) the guards of its layouts and route run root to leaf, once, before any loader or
 * action beneath them. A guard passes a value down as `guard`, or throws `redirect()`,
 * `notFound()` or an `HttpError` to stop the request.
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

export interface GuardContext {
  readonly request: FastifyRequest
  /** None for a path no route matches. */
  readonly params: Readonly<Record<string, string>>
  readonly searchParams: URLSearchParams
  /** The page's path and query (also for page data and form posts): where to come back to. */
  readonly location: string
  readonly cookies: Readonly<Record<string, string | undefined>>
  readonly session: SessionControl
  readonly response: ResponseControl
}

/** Returns what it passes to everything beneath it, or throws to stop the request. */
export type Guard<Value = unknown> = (context: GuardContext) => Value | Promise<Value>

/** For layouts, routes and /api routes alike: `export const signedIn = defineGuard(({ session, location }) => ...)`. */
export function defineGuard<Value>(guard: Guard<Value>): Guard<Value> {
  return guard
}

/** `/login?next=/account`. In /api a guard's redirect is a 401: a script cannot be sent to a page. */
export function redirectToSignIn(signInPath: string, context: Pick<GuardContext, 'location'>): RedirectError {
  return redirect(`${signInPath}?${RETURN_PARAM}=${encodeURIComponent(context.location)}`, 303)
}

export type GuardOutcome =
  | {
      readonly ok: true
      /** By layout id: its own guard's value, else the nearest above. */
      readonly layouts: ReadonlyMap<string, unknown>
      readonly route: unknown
    }
  | {
      readonly ok: false
      readonly layouts: ReadonlyMap<string, unknown>
      readonly error: unknown
      /** Undefined when the route's guard stopped it. */
      readonly layoutId: string | undefined
      /** Layouts above the guard that stopped it: their loaders still run, to frame the error. */
      readonly above: number
    }

/** Most pages: no promise, so no wait. */
export const UNGUARDED: GuardOutcome = { ok: true, layouts: new Map(), route: undefined }

/** A form post's client error renders the page again without running the guards twice. */
const outcomes = new WeakMap<FastifyRequest, Promise<GuardOutcome>>()

export function isGuarded(chain: readonly AnyLayout[], match: RouteMatch | null): boolean {
  return chain.some((layout) => layout.guard) || Boolean(match?.route.guard)
}

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
  // checkGuards at start makes this a bug; it fails closed.
  if (!guard) return { ok: false, error: new Error('A guarded layout or route has no guard function') }
  try {
    return { ok: true, value: await guard(context) }
  } catch (error) {
    return { ok: false, error }
  }
}

/** The types ask for it too; this catches what they cannot see, such as a fixture built at run time. */
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
    /** An /api route's guard: it runs before the body is read. */
    guard?: Guard<any>
  }
}

const apiValues = new WeakMap<FastifyRequest, { readonly guard: Guard<any>; readonly value: unknown }>()

/** The `onRequest` hook of an /api route with `config: { guard }`: before the body is read. */
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

/** `const account = guardValue(request, signedIn)`; throws when the route's config lacks that guard. */
export function guardValue<Value>(request: FastifyRequest, guard: Guard<Value>): Value {
  const passed = apiValues.get(request)
  if (!passed || passed.guard !== guard)
    throw new Error("This route is not guarded by that guard: add it to the route's config ({ config: { guard } })")
  return passed.value as Value
}
