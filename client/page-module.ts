/**
 * The contract of a page's client module (client/pages/<id>.tsx): a component that
 * receives the route's page data and params, and the page's title. The types come
 * from the route table, so a component that disagrees with its route does not compile.
 */
import type { ComponentType, ReactNode } from 'react'
import type { HeadEntries } from '../shared/head.js'
import type { AnyRoute, DataOf, RouteParams, RouteTable } from '../shared/route-table.js'

export interface PageProps<R extends AnyRoute> {
  readonly data: DataOf<R>
  readonly params: RouteParams<R>
}

export interface PageModule<R extends AnyRoute = AnyRoute> {
  /** The document title for this page. */
  title(data: DataOf<R>, params: RouteParams<R>): string
  /** What else goes into `<head>`: description, canonical URL, robots, Open Graph. */
  head?(data: DataOf<R>, params: RouteParams<R>): HeadEntries
  readonly Component: ComponentType<PageProps<R>>
}

/**
 * Declares a page for `route`: `export default definePage(routes.items, { title, Component })`.
 *
 * Declare `Component` as a top-level function of the module: React Fast Refresh
 * (`npm run dev`) swaps only top-level components in place. And `title` and `head` are kept
 * non-enumerable, so that the module's one export looks like what Fast Refresh accepts
 * without a reload, an object whose listed members are all components
 * (@vitejs/plugin-react's "compound component" rule). Nothing else sees a difference.
 */
export function definePage<R extends AnyRoute>(_route: R, page: PageModule<R>): PageModule<R> {
  return Object.defineProperties(
    { Component: page.Component },
    { title: { value: page.title, enumerable: false }, head: { value: page.head, enumerable: false } },
  ) as PageModule<R>
}

/**
 * The product's root layout: what wraps every page, the not-found and error pages
 * included (a header, a nav, a footer). It receives the page as `children`; the app's
 * error boundary sits inside it, so a page that fails in the browser leaves it working.
 */
export type RootLayout = ComponentType<{ readonly children: ReactNode }>

/**
 * How each route's client module is loaded: a dynamic import per route, so the build
 * gives every page its own chunk. One entry per route of the table, checked.
 */
export type PageImports<Table extends RouteTable> = {
  readonly [Id in keyof Table]: () => Promise<{ default: PageModule<Table[Id]> }>
}

/** The page imports of any application, as the runtime (which serves any table) sees them. */
export type AnyPageImports = Readonly<Record<string, () => Promise<{ default: PageModule<any> }>>>
