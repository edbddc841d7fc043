/**
 * The `route` label of a request: the page route's id once the router matched it, else the
 * pattern of the Fastify route that took it (`/api/health`, `/assets/*`), else `unmatched`.
 * Never the URL itself, which a visitor chooses.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set where pages and actions are matched, with metrics or traces on (a property: a WeakMap of requests burdens the GC). */
    pageRouteId?: string | undefined
  }
}

/** With metrics on: every request gets the property from the start, so its shape never changes. */
export function declarePageRouteLabel(app: FastifyInstance): void {
  app.decorateRequest('pageRouteId', undefined)
}

/** Called where the router matches a page or action, so the metrics name what was served. */
export function labelPageRoute(request: FastifyRequest, routeId: string | undefined): void {
  if (routeId !== undefined && (request.server.metrics.enabled || request.server.tracing)) request.pageRouteId = routeId
}

/** `pattern`: the Fastify route's URL pattern, undefined for the not-found handler. */
export function routeLabelOf(request: FastifyRequest, pattern: string | undefined): string {
  const page = request.pageRouteId
  if (page !== undefined) return page
  // The page and page-data catch-alls took a path no page route matched.
  if (pattern === undefined || (pattern.endsWith('/*') && !pattern.startsWith('/assets'))) return 'unmatched'
  return pattern
}
