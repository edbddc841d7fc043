/**
 * Which page is on screen, for the layouts around it (docs/guide/layouts.md, "The page
 * on screen"): a sidebar marks the item of the page it frames, a breadcrumb names it.
 * Read from the payload the page host shows, so it changes with the page, not before.
 */
import { createContext, useContext } from 'react'
import type { ScreenPayload } from '../../../shared/framework/page-payload.js'
import type { AnyRoute, RouteParams } from '../../../shared/framework/route-table.js'
import { LayoutsContext } from './screen.js'

export interface PageMatch {
  /** The route of the page on screen; undefined when no route matched (a 404). */
  readonly routeId: string | undefined
  /** Its params, decoded and checked; none for a not-found or error screen. */
  readonly params: Readonly<Record<string, string>>
}

/** The payload of the page on screen (its route and params are read from it); null outside a screen. */
export const PageMatchContext = createContext<ScreenPayload | null>(null)

/** The route and params of the page on screen, whatever its route. */
export function usePageMatch(): PageMatch {
  const payload = useContext(PageMatchContext)
  return { routeId: payload?.routeId, params: payload?.kind === 'page' ? payload.params : {} }
}

/** The params of the page on screen, typed, when it is `route`'s page; undefined otherwise. */
export function useRouteParams<R extends AnyRoute>(route: R): RouteParams<R> | undefined {
  const { routeId, params } = usePageMatch()
  const routes = useContext(LayoutsContext)?.router.routes
  return routeId !== undefined && routes?.[routeId] === route ? (params as RouteParams<R>) : undefined
}
