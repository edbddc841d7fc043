/** The contract of a page's client module (client/pages/<id>.tsx), typed by the route table. */
import type { ComponentType, ReactNode } from 'react'
import type { HeadEntries } from '../../shared/framework/head.js'
import type { AnyLayout, AnyRoute, DataOf, LayoutDataOf, LayoutTable, RouteParams, RouteTable } from '../../shared/framework/route-table.js'

/** From 500 up a loader's failure carries only the digest; below 500, an `HttpError`'s exposed message. */
export type RouteFailure =
  | { readonly kind: 'loader'; readonly status: number; readonly digest?: string | undefined; readonly message?: string | undefined }
  | { readonly kind: 'render' }

/** Shown in place of what failed, inside the nearest layout that did not fail. */
export type ErrorComponent = ComponentType<{ readonly failure: RouteFailure }>

export type NotFoundComponent = ComponentType<{}>

/** docs/architecture.md, "Layouts". */
export interface Boundaries {
  readonly ErrorBoundary?: ErrorComponent
  readonly NotFound?: NotFoundComponent
}

export interface PageProps<R extends AnyRoute> {
  readonly data: DataOf<R>
  readonly params: RouteParams<R>
}

export interface PageModule<R extends AnyRoute = AnyRoute> extends Boundaries {
  title(data: DataOf<R>, params: RouteParams<R>): string
  head?(data: DataOf<R>, params: RouteParams<R>): HeadEntries
  readonly Component: ComponentType<PageProps<R>>
}

/**
 * `Component` must be a top-level function (Fast Refresh swaps only those), and `title`
 * and `head` are non-enumerable so the export passes @vitejs/plugin-react's "compound
 * component" rule without a reload. Export what this returns unwrapped: the browser
 * hydrates the first page with the module recorded here, later ones by importing it.
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

/** The server checks a page file declares its own route. */
const pageRoutes = new WeakMap<PageModule<any>, AnyRoute>()

export function routeOfPage(module: PageModule<any>): AnyRoute | undefined {
  return pageRoutes.get(module)
}

const definedPages = new Map<AnyRoute, PageModule<any>>()

/** Lets the first page hydrate without waiting a task for a dynamic import (browser/start.tsx). */
export function definedPage<R extends AnyRoute>(route: R): PageModule<R> | undefined {
  return definedPages.get(route)
}

function boundariesOf({ ErrorBoundary, NotFound }: Boundaries): Boundaries {
  return { ...(ErrorBoundary ? { ErrorBoundary } : {}), ...(NotFound ? { NotFound } : {}) }
}

export interface LayoutProps<L extends AnyLayout> {
  /** Undefined for a layout declared without data. */
  readonly data: LayoutDataOf<L>
  readonly children: ReactNode
}

/** The root layout wraps every page, the not-found and error pages included. */
export interface LayoutModule<L extends AnyLayout = AnyLayout> extends Boundaries {
  readonly Component: ComponentType<LayoutProps<L>>
  /** A page's own entries win over these. */
  head?(data: LayoutDataOf<L>): HeadEntries
}

/** Kept non-enumerable like definePage's. */
export function defineLayout<L extends AnyLayout>(_layout: L, module: LayoutModule<L>): LayoutModule<L> {
  return Object.defineProperties(
    { Component: module.Component, ...boundariesOf(module) },
    { head: { value: module.head, enumerable: false } },
  ) as LayoutModule<L>
}

export type LayoutModules<Layouts extends LayoutTable> = { readonly [Id in keyof Layouts]: LayoutModule<Layouts[Id]> }

export type AnyLayoutModules = Readonly<Record<string, LayoutModule<any>>>

/** A dynamic import per route, so the build gives every page its own chunk. */
export type PageImports<Table extends RouteTable> = {
  readonly [Id in keyof Table]: () => Promise<{ default: PageModule<Table[Id]> }>
}

export type AnyPageImports = Readonly<Record<string, () => Promise<{ default: PageModule<any> }>>>
