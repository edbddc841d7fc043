/**
 * The contract of a page's server module (server/pages/<id>.ts): a loader that returns
 * the route's page data. The route table gives the types, so a loader returning the
 * wrong shape does not compile.
 */
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
  /** The route's params, decoded and validated against the table. */
  readonly params: RouteParams<R>
  /** The query parameters the route declares, parsed (a value it does not take was a 400 already). */
  readonly search: SearchValues<SearchOf<R>>
  /** The whole query, as sent: what the route does not declare too. */
  readonly searchParams: URLSearchParams
  readonly request: FastifyRequest
}

/**
 * What a dynamic page's loader and every action get besides: the request's cookies,
 * control over the answer (cookies, headers) and the visitor's session. A static page's answer is rendered once
 * and shared by everyone, so its loader gets neither: using them does not compile.
 */
export interface PerRequestContext {
  readonly cookies: Readonly<Record<string, string | undefined>>
  readonly response: ResponseControl
  /** The visitor's session (an encrypted cookie: server/framework/session.ts). */
  readonly session: SessionControl
}

/**
 * What the guards above a loader or action passed: `guard` is the value of the nearest
 * one (the signed-in account, say); nothing when none guards it.
 */
export type GuardedContext<Value> = [Value] extends [never] ? {} : { readonly guard: Value }

export type LoaderContext<R extends AnyRoute> = RequestContext<R> &
  ([ModeOf<R>] extends ['dynamic'] ? PerRequestContext & GuardedContext<GuardValueOf<R>> : {})

/** What an action gets: a form post is never cached, so it may always read and set cookies. */
export type ActionContext<R extends AnyRoute> = RequestContext<R> & PerRequestContext & GuardedContext<GuardValueOf<R>>

/**
 * What a layout's loader gets: neither params nor the query (a layout's data is shared
 * by every page in it, whatever their URL, which is what lets the browser keep it across
 * their navigations) and, when the layout is dynamic, the request's cookies, answer and
 * session.
 */
export type LayoutLoaderContext<L extends AnyLayout> = {
  readonly request: FastifyRequest
} & ([L['mode']] extends ['dynamic'] ? PerRequestContext & GuardedContext<GuardValueOf<L>> : {})

/** What a layout's action gets: the page's location as the form posted it, cookies, answer, session, and what its guards passed. */
export type LayoutActionContext<Guarded = never> = PerRequestContext &
  GuardedContext<Guarded> & {
    /** The params of the page the form was on (any page in the layout can post it). */
    readonly params: Readonly<Record<string, string>>
    readonly searchParams: URLSearchParams
    readonly request: FastifyRequest
  }

/**
 * Runs when a form posts to the page naming this action. Validates its input (the
 * client may help, never decide) and answers `actionSuccess(redirect?)` or
 * `actionInvalid(fieldErrors)`. Anything it throws is a 500 with a digest. Its files
 * are removed once it is over, whatever the outcome.
 */
export type ActionHandler<R extends AnyRoute, Input, FileFields extends string = never, Fields extends string = keyof Input & string> = (
  input: Input & ActionInput<never, FileFields>,
  context: ActionContext<R>,
) => ActionOutcome<Fields | FileFields> | Promise<ActionOutcome<Fields | FileFields>>

/** Each action's input: its fields as their schemas parse them (a refused value never reaches it), and its files. */
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

/** The value of a layout's or route's own guard (`never` when it declares none). */
export type OwnGuardOf<X> = X extends { readonly guard: GuardDecl<infer V> } ? V : never

/** The guard function exactly when the layout or route declares `guard: guarded<Value>()`. */
type GuardPart<X> = [OwnGuardOf<X>] extends [never]
  ? { readonly guard?: undefined }
  : {
      /** Runs before every loader and action beneath it (server/framework/guards.ts). */
      readonly guard: Guard<OwnGuardOf<X>>
    }

/** What the root layout reads to choose the document's `<html>` attributes. */
export interface DocumentRequest {
  readonly cookies: Readonly<Record<string, string | undefined>>
}

/** The product's say on every document, given by the root layout's server module. */
export interface DocumentHooks {
  /**
   * Attributes for `<html>` on every document of this visitor (the theme's
   * `data-theme`), so the first paint is right. Static pages are kept once per set of
   * attributes: return one of a few values, never one made of what a visitor sent.
   */
  readonly documentAttributes?: (request: DocumentRequest) => Readonly<Record<string, string>> | undefined
}

/**
 * A layout's server side: a loader exactly when the layout declares data, action
 * handlers exactly when it declares actions; the root layout may add document hooks.
 */
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

/** True when a layout needs a server module (it has data, actions or a guard). */
type NeedsServer<L> = L extends AnyLayout
  ? [LayoutDataOf<L>] extends [undefined]
    ? [ActionName<L>] extends [never]
      ? [OwnGuardOf<L>] extends [never]
        ? false
        : true
      : true
    : true
  : never

/** The server side of every layout that has data or actions (others may be left out). */
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

/** A route's server side: its loader and, exactly when the route declares actions, their handlers. */
export type ServerPage<R extends AnyRoute = AnyRoute> = PageLoader<R> &
  GuardPart<R> &
  ([ActionName<R>] extends [never] ? { readonly actions?: undefined } : { readonly actions: ActionHandlers<R> })

/** Declares a route's server side: `export default defineServerPage(routes.items, { loader })`. */
export function defineServerPage<R extends AnyRoute>(route: R, page: ServerPage<R>): ServerPage<R> {
  serverPageRoutes.set(page, route)
  return page
}

/** The route each server page was declared for: the start checks a page file declares its own. */
const serverPageRoutes = new WeakMap<object, AnyRoute>()

export function routeOfServerPage(page: object): AnyRoute | undefined {
  return serverPageRoutes.get(page)
}

export type ServerPages<Table extends RouteTable> = { readonly [Id in keyof Table]: ServerPage<Table[Id]> }

/**
 * Everything the server needs to know about an application's pages: the route table,
 * each route's server module, and each route's client module (to render it). The
 * production app is server/application.ts; tests pass fixture apps of their own.
 */
export interface AppDefinition<Table extends RouteTable, Layouts extends LayoutTable = {}> {
  readonly router: Router<Table, Layouts>
  readonly serverPages: ServerPages<Table>
  readonly clientPages: PageImports<Table>
  /** The layouts' server side (server/layouts/): loaders and actions. */
  readonly serverLayouts: ServerLayouts<Layouts>
  /** The layouts' components (client/layouts/), rendered around the pages on both sides. */
  readonly clientLayouts: LayoutModules<Layouts>
}

/**
 * An app definition whatever its table: the server's plugins handle any application.
 * (`href` takes the table's ids as arguments, which makes tables invariant, so no
 * concrete table's definition is an `AppDefinition<RouteTable>`.)
 */
export type AnyAppDefinition = AppDefinition<any, any>
