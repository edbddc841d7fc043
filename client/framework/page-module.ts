/**
 * The contract of a page's client module (client/pages/<id>.tsx): a component that
 * receives the route's page data and params, and the page's title. The types come
 * from the route table, so a component that disagrees with its route does not compile.
 */
import type { ComponentType, ReactNode } from 'react'
import type { HeadEntries } from '../../shared/framework/head.js'
import type { AnyLayout, AnyRoute, DataOf, LayoutDataOf, LayoutTable, RouteParams, RouteTable } from '../../shared/framework/route-table.js'

/**
 * What an error component is told: a loader's failure (its status and, from 500 up,
 * only the digest that finds the log line; below 500 an `HttpError`'s exposed message),
 * or a render error in the browser.
 */
export type RouteFailure =
  | { readonly kind: 'loader'; readonly status: number; readonly digest?: string | undefined; readonly message?: string | undefined }
  | { readonly kind: 'render' }

/**
 * Shown in place of what failed, inside the nearest layout that did not: a route's for
 * its page, a layout's for the pages and layouts inside it.
 */
export type ErrorComponent = ComponentType<{ readonly failure: RouteFailure }>

/** Shown for `notFound()`, inside the nearest layout that did not throw it. */
export type NotFoundComponent = ComponentType<{}>

/** What a route or a layout may declare to handle its own failures (docs/architecture.md, "Layouts"). */
export interface Boundaries {
  readonly ErrorBoundary?: ErrorComponent
  readonly NotFound?: NotFoundComponent
}

export interface PageProps<R extends AnyRoute> {
  readonly data: DataOf<R>
  readonly params: RouteParams<R>
}

export interface PageModule<R extends AnyRoute = AnyRoute> extends Boundaries {
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
 * (@vitejs/plugin-react's "compound component" rule).
 *
 * The module's default export must be what this returns, unwrapped: the browser
 * hydrates the first page with the module recorded here (`definedPage`), and loads
 * later pages by importing their chunk's default export; the two must be the same.
 */
export function definePage<R extends AnyRoute>(route: R, page: PageModule<R>): PageModule<R> {
  const module = Object.defineProperties(
    { Component: page.Component, ...boundariesOf(page) },
    { title: { value: page.title, enumerable: false }, head: { value: page.head, enumerable: false } },
  ) as PageModule<R>
  definedPages.set(route, module)
  pageRoutes.set(module, route)
  return module
}

/** The route each page module was defined for: the server checks a page file declares its own. */
const pageRoutes = new WeakMap<PageModule<any>, AnyRoute>()

export function routeOfPage(module: PageModule<any>): AnyRoute | undefined {
  return pageRoutes.get(module)
}

/** Every page module defined so far (its chunk has run), by route: one per route, the latest edit in development. */
const definedPages = new Map<AnyRoute, PageModule<any>>()

/**
 * The module `definePage` made for `route`, if its chunk has run. The browser's start
 * reads it for the first page (client/framework/browser/start.tsx): the document's script is
 * that page's chunk, which runs with the entry, so the page hydrates without waiting a
 * task for a dynamic import of it.
 */
export function definedPage<R extends AnyRoute>(route: R): PageModule<R> | undefined {
  return definedPages.get(route)
}

function boundariesOf({ ErrorBoundary, NotFound }: Boundaries): Boundaries {
  return { ...(ErrorBoundary ? { ErrorBoundary } : {}), ...(NotFound ? { NotFound } : {}) }
}

export interface LayoutProps<L extends AnyLayout> {
  /** The layout's data (undefined for a layout declared without). */
  readonly data: LayoutDataOf<L>
  /** The page, or the layout inside this one. */
  readonly children: ReactNode
}

/**
 * The client side of a layout (client/layouts/<id>.tsx): what goes around the pages
 * in it. The root layout wraps every page, the not-found and error pages included;
 * the framework puts `<main>` around its children.
 */
export interface LayoutModule<L extends AnyLayout = AnyLayout> extends Boundaries {
  readonly Component: ComponentType<LayoutProps<L>>
  /** Head entries from the layout's data; a page's own entries win over them. */
  head?(data: LayoutDataOf<L>): HeadEntries
}

/** Declares a layout's client side: `export default defineLayout(layouts.items, { Component })` (kept like definePage's). */
export function defineLayout<L extends AnyLayout>(_layout: L, module: LayoutModule<L>): LayoutModule<L> {
  return Object.defineProperties(
    { Component: module.Component, ...boundariesOf(module) },
    { head: { value: module.head, enumerable: false } },
  ) as LayoutModule<L>
}

/** Every layout's client module, by id, checked against the layout table. */
export type LayoutModules<Layouts extends LayoutTable> = { readonly [Id in keyof Layouts]: LayoutModule<Layouts[Id]> }

/** The layout modules of any application, as the runtime sees them. */
export type AnyLayoutModules = Readonly<Record<string, LayoutModule<any>>>

/**
 * How each route's client module is loaded: a dynamic import per route, so the build
 * gives every page its own chunk. One entry per route of the table, checked.
 */
export type PageImports<Table extends RouteTable> = {
  readonly [Id in keyof Table]: () => Promise<{ default: PageModule<Table[Id]> }>
}

/** The page imports of any application, as the runtime (which serves any table) sees them. */
export type AnyPageImports = Readonly<Record<string, () => Promise<{ default: PageModule<any> }>>>
