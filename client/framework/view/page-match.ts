/** Which page is on screen, for its layouts: read from what the page host shows, so it changes with the page. */
import { createContext, useContext } from 'react'
import type { RenderPayload } from '../../../shared/framework/page-payload.js'
import type { AnyRoute, DataOf, RouteParams } from '../../../shared/framework/route-table.js'
import { LayoutsContext } from './layout-tree.js'

export interface PageMatch {
  /** Undefined when no route matched (a 404). */
  readonly routeId: string | undefined
  /** Decoded and checked; none for a not-found or error page. */
  readonly params: Readonly<Record<string, string>>
}

export const PageMatchContext = createContext<RenderPayload | null>(null)

export function usePageMatch(): PageMatch {
  const payload = useContext(PageMatchContext)
  return { routeId: payload?.routeId, params: payload?.kind === 'page' ? payload.params : {} }
}

export function useRouteParams<R extends AnyRoute>(route: R): RouteParams<R> | undefined {
  const { routeId, params } = usePageMatch()
  const routes = useContext(LayoutsContext)?.router.routes
  return routeId !== undefined && routes?.[routeId] === route ? (params as RouteParams<R>) : undefined
}

/**
 * The data of the page on screen when it is `route`'s (React Router's `useMatches`, typed):
 * never a page still loading's; a deferred part is a promise, as the page receives it.
 */
export function usePageData<R extends AnyRoute>(route: R): DataOf<R> | undefined {
  const payload = useContext(PageMatchContext)
  const routes = useContext(LayoutsContext)?.router.routes
  if (payload?.kind !== 'page' || payload.routeId === undefined) return undefined
  return routes?.[payload.routeId] === route ? (payload.data as DataOf<R>) : undefined
}
