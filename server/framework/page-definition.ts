/** The contract of a page's and a layout's server module, typed by the route table. */
import type { FastifyRequest } from 'fastify'
import type { SearchValues } from '../../shared/framework/search-params.js'
import type { ActionInput, ActionOutcome } from '../../shared/framework/actions.js'
import type {
  ActionFields,
  ActionFieldValues,
  ActionFileFields,
  ActionName,
  AnyLayout,
  AnyRoute,
  DataOf,
  GuardDecl,
  GuardValueOf,
  LayoutDataOf,
  LayoutTable,
  ModeOf,
  RouteParams,
  SearchOf,
  RouteTable,
  Router,
} from '../../shared/framework/route-table.js'
import type { ResponseControl } from './response-control.js'
import type { SessionControl } from './session.js'
import type { Guard } from './guards.js'
import type { BrowserBound } from './server-only.js'
import type { LayoutModules, PageImports } from '../../client/framework/page-module.js'

/** What every loader and action gets. */
export interface RequestContext<R extends AnyRoute> {
  readonly params: RouteParams<R>
  /** The query parameters the route declares, parsed (a value it does not take was a 400 already). */
  readonly search: SearchValues<SearchOf<R>>
  /** The whole query, undeclared parameters too. */
  readonly searchParams: URLSearchParams
  readonly request: FastifyRequest
}

/**
 * For a dynamic page's loader and every action. A static page is rendered once and shared
 * by everyone, so its loader gets none of it: using them does not compile.
 */
export interface PerRequestContext {
  readonly cookies: Readonly<Record<string, string | undefined>>
  readonly response: ResponseControl
  readonly session: SessionControl
}

/** `guard`: the value the nearest guard above passed (the signed-in account, say). */
export type GuardedContext<Value> = [Value] extends [never] ? {} : { readonly guard: Value }

export type LoaderContext<R extends AnyRoute> = RequestContext<R> &
  ([ModeOf<R>] extends ['dynamic'] ? PerRequestContext & GuardedContext<GuardValueOf<R>> : {})

/** A form post is never cached, so an action may always read and set cookies. */
export type ActionContext<R extends AnyRoute> = RequestContext<R> & PerRequestContext & GuardedContext<GuardValueOf<R>>

/**
 * Neither params nor the query: a layout's data is shared by every page in it, which lets
 * the browser keep it across their navigations.
 */
export type LayoutLoaderContext<L extends AnyLayout> = {
  readonly request: FastifyRequest
} & ([L['mode']] extends ['dynamic'] ? PerRequestContext & GuardedContext<GuardValueOf<L>> : {})

export type LayoutActionContext<Guarded = never> = PerRequestContext &
  GuardedContext<Guarded> & {
    /** Of the page the form was on (any page in the layout can post it). */
    readonly params: Readonly<Record<string, string>>
    readonly searchParams: URLSearchParams
    readonly request: FastifyRequest
  }

/**
 * Returns `actionSuccess(redirect?)` or `actionInvalid(fieldErrors)`; anything else it
 * throws is a 500 with a digest. Its files are removed once it is over, whatever the outcome.
 */
export type ActionHandler<R extends AnyRoute, Input, FileFields extends string = never, Fields extends string = keyof Input & string> = (
  input: Input & ActionInput<never, FileFields>,
  context: ActionContext<R>,
) => ActionOutcome<Fields | FileFields> | Promise<ActionOutcome<Fields | FileFields>>

/** Each action's fields as their schemas parse them (an invalid value never reaches it), and its files. */
export type ActionHandlers<R extends AnyRoute> = {
  readonly [A in ActionName<R>]: ActionHandler<R, ActionFieldValues<R, A>, ActionFileFields<R, A>, ActionFields<R, A>>
}

export type LayoutActionHandler<Input, Guarded = never, Fields extends string = keyof Input & string> = (
  input: Input,
  context: LayoutActionContext<Guarded>,
) => ActionOutcome<Fields> | Promise<ActionOutcome<Fields>>

export type LayoutActionHandlers<L extends AnyLayout> = {
  readonly [A in ActionName<L>]: LayoutActionHandler<ActionFieldValues<L, A>, GuardValueOf<L>, ActionFields<L, A>>
}

/** `never` when it declares no guard. */
export type OwnGuardOf<X> = X extends { readonly guard: GuardDecl<infer V> } ? V : never

/** Exactly when the layout or route declares `guard: guarded<Value>()`. */
type GuardPart<X> = [OwnGuardOf<X>] extends [never]
  ? { readonly guard?: undefined }
  : {
      /** Runs before every loader and action beneath it. */
      readonly guard: Guard<OwnGuardOf<X>>
    }

export interface DocumentRequest {
  readonly cookies: Readonly<Record<string, string | undefined>>
}

/** Given by the root layout's server module. */
export interface DocumentHooks {
  /**
   * Attributes for `<html>` (the theme's `data-theme`), so the first paint is right. Static
   * pages are kept once per set: return one of a few values, never what a visitor sent.
   */
  readonly documentAttributes?: (request: DocumentRequest) => Readonly<Record<string, string>> | undefined
}

/** A loader exactly when the layout declares data, actions exactly when it declares them. */
export type ServerLayout<L extends AnyLayout = AnyLayout> = DocumentHooks &
  GuardPart<L> &
  ([LayoutDataOf<L>] extends [undefined]
    ? { readonly loader?: undefined }
    : {
        /** Returns the layout's data, or throws `notFound()`, `redirect()` or an `HttpError`. */
        loader(context: LayoutLoaderContext<L>): BrowserBound<LayoutDataOf<L>> | Promise<BrowserBound<LayoutDataOf<L>>>
      }) &
  ([ActionName<L>] extends [never] ? { readonly actions?: undefined } : { readonly actions: LayoutActionHandlers<L> })

/** Declares a layout's server side: `export default defineServerLayout(layouts.items, { loader })`. */
export function defineServerLayout<L extends AnyLayout>(_layout: L, layout: ServerLayout<L>): ServerLayout<L> {
  return layout
}

/** Data, actions or a guard. */
type NeedsServer<L> = L extends AnyLayout
  ? [LayoutDataOf<L>] extends [undefined]
    ? [ActionName<L>] extends [never]
      ? [OwnGuardOf<L>] extends [never]
        ? false
        : true
      : true
    : true
  : never

export type ServerLayouts<Layouts extends LayoutTable> = {
  readonly [Id in keyof Layouts as NeedsServer<Layouts[Id]> extends true ? Id : never]: ServerLayout<Layouts[Id]>
} & {
  readonly [Id in keyof Layouts as NeedsServer<Layouts[Id]> extends true ? never : Id]?: ServerLayout<Layouts[Id]>
}

interface PageLoader<R extends AnyRoute> {
  /**
   * Returns the page data, or throws `notFound()`, `redirect()` or an `HttpError`. A
   * `ServerOnly` record anywhere in it does not compile (./server-only.ts).
   */
  loader(context: LoaderContext<R>): BrowserBound<DataOf<R>> | Promise<BrowserBound<DataOf<R>>>
}

export type ServerPage<R extends AnyRoute = AnyRoute> = PageLoader<R> &
  GuardPart<R> &
  ([ActionName<R>] extends [never] ? { readonly actions?: undefined } : { readonly actions: ActionHandlers<R> })

/** Declares a route's server side: `export default defineServerPage(routes.items, { loader })`. */
export function defineServerPage<R extends AnyRoute>(route: R, page: ServerPage<R>): ServerPage<R> {
  serverPageRoutes.set(page, route)
  return page
}

/** The start checks a page file declares its own route. */
const serverPageRoutes = new WeakMap<object, AnyRoute>()

export function routeOfServerPage(page: object): AnyRoute | undefined {
  return serverPageRoutes.get(page)
}

export type ServerPages<Table extends RouteTable> = { readonly [Id in keyof Table]: ServerPage<Table[Id]> }

/** The production app is server/application.ts; tests pass fixture apps of their own. */
export interface AppDefinition<Table extends RouteTable, Layouts extends LayoutTable = {}> {
  readonly router: Router<Table, Layouts>
  readonly serverPages: ServerPages<Table>
  readonly clientPages: PageImports<Table>
  readonly serverLayouts: ServerLayouts<Layouts>
  readonly clientLayouts: LayoutModules<Layouts>
}

/** `href` makes tables invariant, so no concrete definition is an `AppDefinition<RouteTable>`. */
export type AnyAppDefinition = AppDefinition<any, any>
