/**
 * The route machinery both sides share; it knows nothing of the application's own
 * routes (shared/routes.ts), so tests can give it a fixture table. Matching works on
 * the raw (percent-encoded) pathname, as `location.pathname` and the request line
 * carry it; params are decoded once matched.
 */
import type { FileFieldsDecl, FilesDecl } from './uploads.js'
import type { GuardDecl, OwnGuard, ScopeOf } from './guard-declaration.js'
import type { SecretsDecl, SecretsFor } from './secret-fields.js'
import { compile, decodeParam } from './route-pattern.js'
import type { ActionFieldsDecl, FieldNamesOf, InputOf } from './action-fields.js'
import type { WithoutDeferred } from './deferred.js'
import type { PrefetchMode } from './prefetch-mode.js'
import type { SharedCacheDecl } from './shared-cache.js'
export type { SharedCacheDecl } from './shared-cache.js'
import { formatSearch, searchDeclOf, type SearchDecl, type SearchInput, type SearchOf } from './search-params.js'
export { searchDeclOf, type SearchOf } from './search-params.js'

export { guarded, type GuardDecl, type GuardValueOf } from './guard-declaration.js'
export type { ActionSecretFields, ActionValueFields, SecretsDecl, SecretsFor, SecretsOf } from './secret-fields.js'

export type RenderMode = 'static' | 'dynamic'
export { prefetchModeOf, type PrefetchMode } from './prefetch-mode.js'

/** `'/items/:id/:tab'` -> `'id' | 'tab'` */
export type ParamNames<Pattern extends string> = Pattern extends `${string}:${infer Rest}`
  ? Rest extends `${infer Name}/${infer Tail}`
    ? Name | ParamNames<`/${Tail}`>
    : Rest
  : never

export type ParamsOf<Pattern extends string> = { [K in ParamNames<Pattern>]: string }

/**
 * Each action with the fields its form posts: `{ star: { id: field.int(), starred: field.checkbox() } }`
 * (parsed and typed for the action), a Standard Schema for the whole form, or names alone
 * (`{ send: ['name', 'email'] }`, strings as sent).
 */
export type ActionsDecl = { readonly [action: string]: ActionFieldsDecl }

/** A static layout's data is cached and shared; a dynamic one's is per request. `layout()` without `Data` needs no loader. */
export interface LayoutDef<
  Id extends string = string,
  Data = unknown,
  Mode extends RenderMode = RenderMode,
  Actions extends ActionsDecl = {},
  Secrets extends SecretsDecl = {},
  // Wide by default: a guarded layout or route is still a LayoutDef / RouteDef.
  Guarded = unknown,
> {
  readonly id: Id
  readonly mode: Mode
  readonly parent?: AnyLayout | undefined
  readonly actions?: Actions
  /** Set when the layout's server module gives it a guard of its own. */
  readonly guard?: GuardDecl | undefined
  /** Never sent back with a refused form. */
  readonly secrets?: Secrets
  /** Phantom: the layout data's type, undefined at run time. */
  readonly __data?: Data
  /** Phantom: what the nearest guard passes beneath this layout. */
  readonly __guard?: { readonly value: Guarded }
}

export type AnyLayout = LayoutDef<string, any, RenderMode, any, any, any>
/** A static layout: every layout above it is static too and none is guarded, so a static page may sit in it. */
export type StaticLayout = LayoutDef<string, any, 'static', any, any, never> & { readonly guard?: undefined }
export type LayoutTable = Readonly<Record<string, AnyLayout>>

export type LayoutDataOf<L> = L extends LayoutDef<string, infer D, any, any, any, any> ? D : never

/**
 * `layout<ItemsLayoutData>()({ id: 'items', mode: 'static', parent: rootLayout })`.
 * A static layout's answer is shared, so a dynamic parent's data would leak into it: refused.
 */
export function layout<Data = undefined>() {
  return <
    const Id extends string,
    const Mode extends (WithoutDeferred<Data> extends true ? RenderMode : 'dynamic'),
    const Actions extends ActionsDecl = {},
    const Parent extends AnyLayout | undefined = undefined,
    Value = never,
    const Secrets extends SecretsDecl & SecretsFor<Actions> = {},
  >(def: {
    id: Id
    mode: Mode
    parent?: Parent & (Mode extends 'static' ? StaticLayout : AnyLayout)
    actions?: Actions
    /** A static layout is shared by every visitor: it cannot be guarded. */
    guard?: Mode extends 'static' ? never : GuardDecl<Value>
    // Keyed by the layout's own actions, each naming its own fields: anything else does not compile.
    secrets?: Secrets & { readonly [A in Exclude<keyof Secrets, keyof Actions>]: never }
  }): LayoutDef<Id, Data, Mode, Actions, Secrets, ScopeOf<Value, Parent>> & OwnGuard<Mode, Value> => def as never
}

export interface RouteDef<
  Pattern extends string = string,
  Data = unknown,
  Actions extends ActionsDecl = {},
  Files extends FilesDecl = {},
  Secrets extends SecretsDecl = {},
  // Wide by default: a guarded layout or route is still a LayoutDef / RouteDef.
  Guarded = unknown,
> {
  readonly pattern: Pattern
  readonly mode: RenderMode
  /** A param whose decoded value fails its RegExp is a 404. */
  readonly params?: { readonly [K in ParamNames<Pattern>]?: RegExp }
  /** Phantom: the page data's type, undefined at run time. */
  readonly __data?: Data
  readonly actions?: Actions
  /** Actions that take files accept multipart forms (shared/framework/uploads.ts). */
  readonly files?: Files
  /** Never sent back with a refused form. */
  readonly secrets?: Secrets
  /** Pays only for pages that suspend: a whole-string render is about twice as fast (docs/decisions/008). */
  readonly stream?: boolean
  readonly prefetch?: PrefetchMode | undefined
  /** Static routes only: how long shared caches may keep the page (shared/framework/shared-cache.ts). */
  readonly sharedCache?: SharedCacheDecl | undefined
  /** None: the root layout. */
  readonly layout?: AnyLayout | undefined
  /** Set when the route's server module gives it a guard of its own. */
  readonly guard?: GuardDecl | undefined
  /** Phantom: what the nearest guard passes to this route's loader and actions. */
  readonly __guard?: { readonly value: Guarded }
}

export type AnyRoute = RouteDef<string, any, any, any, any, any>
export type RouteTable = Readonly<Record<string, AnyRoute>>

export type DataOf<R> = R extends RouteDef<string, infer D, any, any, any, any> ? D : never
export type PatternOf<R> = R extends RouteDef<infer P, any, any, any, any, any> ? P : never
export type ActionsOf<R> = R extends { readonly actions?: infer A extends ActionsDecl } ? A : {}
export type ActionName<R> = keyof ActionsOf<R> & string
export type ActionFields<R, A extends string> = ActionsOf<R> extends { readonly [K in A]: infer D } ? FieldNamesOf<D> : never
/** What the action receives for its fields: typed by their schemas, strings for names alone. */
export type ActionFieldValues<R, A extends string> = ActionsOf<R> extends { readonly [K in A]: infer D } ? InputOf<D> : never
export type FilesOf<R> = R extends { readonly files?: infer F extends FilesDecl } ? F : {}
export type ActionFileFields<R, A extends string> = FilesOf<R> extends { readonly [K in A]: infer F } ? keyof F & string : never
export type RouteParams<R> = ParamsOf<PatternOf<R>>
/** `href()`'s arguments after the route id: its params (none for a route without), then its query. */
export type HrefArgs<R> = [ParamNames<PatternOf<R>>] extends [never]
  ? [params?: Readonly<Record<string, never>>, search?: SearchInput<SearchOf<R>>]
  : [params: RouteParams<R>, search?: SearchInput<SearchOf<R>>]

/**
 * `route<ItemData>()({ pattern: '/items/:id', mode: 'dynamic', params: { id: /^\d+$/ } })`,
 * with `actions`, `files` and `secrets` keyed by action. Curried so `Data` is given while
 * the rest is inferred.
 */
export function route<Data>() {
  return <
    const Pattern extends string,
    // A static page or layout is rendered once and kept: its data cannot have deferred parts (promises).
    const Mode extends (WithoutDeferred<Data> extends true ? RenderMode : 'dynamic'),
    const Actions extends ActionsDecl = {},
    const Files extends FilesDecl & { readonly [A in keyof Actions]?: FileFieldsDecl } = {},
    const Layout extends AnyLayout | undefined = undefined,
    Value = never,
    const Secrets extends SecretsDecl & SecretsFor<Actions> = {},
    const Search extends SearchDecl = {},
  >(def: {
    pattern: Pattern
    mode: Mode
    params?: { readonly [K in ParamNames<Pattern>]?: RegExp }
    actions?: Actions
    // Keyed by the route's own actions only: files for an action it does not declare do not compile.
    files?: Files & { readonly [A in Exclude<keyof Files, keyof Actions>]: never }
    secrets?: Secrets & { readonly [A in Exclude<keyof Secrets, keyof Actions>]: never }
    stream?: boolean
    prefetch?: PrefetchMode
    search?: Search
    /** A static page may sit only in a static, unguarded layout: the type checker refuses another. */
    layout?: Layout & (Mode extends 'static' ? StaticLayout : AnyLayout)
    /** A static page is shared by every visitor: it cannot be guarded. */
    guard?: Mode extends 'static' ? never : GuardDecl<Value>
    /** Only a static page is the same for everyone, so only it may be kept by a shared cache. */
    sharedCache?: Mode extends 'static' ? SharedCacheDecl : never
  }): RouteDef<Pattern, Data, Actions, Files, Secrets, ScopeOf<Value, Layout>> & { readonly mode: Mode; readonly search?: Search } & OwnGuard<
      Mode,
      Value
    > => def as never
}

export type ModeOf<R> = R extends { readonly mode: infer M extends RenderMode } ? M : RenderMode

export interface RouteMatch<Table extends RouteTable = RouteTable> {
  readonly id: keyof Table & string
  readonly route: Table[keyof Table]
  readonly params: Record<string, string>
}

/** Route order is match order: first match wins. */
export interface Router<Table extends RouteTable, Layouts extends LayoutTable = LayoutTable> {
  readonly routes: Table
  readonly layouts: Layouts
  /** Around a path no route matches, the root alone. */
  layoutsOf(routeId: string | undefined): readonly AnyLayout[]
  /** `pathname` is raw: no search, no hash. */
  match(pathname: string): RouteMatch<Table> | null
  /** `href('notes', {}, { q: 'word' })` -> `/notes?q=word`; params are encoded. */
  href<Id extends keyof Table & string>(id: Id, ...args: HrefArgs<Table[Id]>): string
}

/** The rules the types cannot see are checked by the server at start-up (layout-rules.ts), out of the browser's bundle. */
export function createRouter<const Table extends RouteTable, const Layouts extends LayoutTable = {}>(
  routes: Table,
  layouts: Layouts = {} as Layouts,
): Router<Table, Layouts> {
  const compiled = Object.entries(routes).map(([id, route]) => compile(id, route))
  const root = Object.values(layouts).find((layout) => !layout.parent)
  const chains = new Map<string, readonly AnyLayout[]>()
  for (const [id, route] of Object.entries(routes)) {
    const chain: AnyLayout[] = []
    for (let layout = route.layout ?? root; layout; layout = layout.parent) chain.unshift(layout)
    chains.set(id, chain)
  }
  const rootChain: readonly AnyLayout[] = root ? [root] : []
  const layoutsOf = (routeId: string | undefined) => (routeId !== undefined ? chains.get(routeId) : undefined) ?? rootChain

  function match(pathname: string): RouteMatch<Table> | null {
    for (const candidate of compiled) {
      const found = candidate.regexp.exec(pathname)
      if (!found) continue
      const params: Record<string, string> = {}
      let valid = true
      candidate.keys.forEach((key, i) => {
        const value = decodeParam(found[i + 1]!)
        const check = (candidate.route.params as Record<string, RegExp> | undefined)?.[key]
        if (value === undefined || (check && !check.test(value))) valid = false
        else params[key] = value
      })
      // A failed param check is a 404, not a reason to try the next route: the pattern named this one.
      if (!valid) return null
      return { id: candidate.id, route: candidate.route as Table[keyof Table], params }
    }
    return null
  }

  function href(id: string, params: Record<string, string> = {}, search?: Record<string, unknown>): string {
    const route = routes[id]
    if (!route) throw new Error(`Unknown route "${id}"`)
    return pathOf(id, route, params) + formatSearch(searchDeclOf(route), search)
  }

  /** Each route's pattern split once (a page renders dozens of links): literal text at even indexes, param names at odd. */
  const patternParts = new Map<string, readonly string[]>()

  function pathOf(id: string, route: AnyRoute, params: Record<string, string>): string {
    let parts = patternParts.get(id)
    if (!parts) patternParts.set(id, (parts = route.pattern.split(/:([A-Za-z_][A-Za-z0-9_]*)/)))
    let path = parts[0]!
    for (let i = 1; i < parts.length; i += 2) {
      const key = parts[i]!
      const value = params[key]
      if (value === undefined) throw new Error(`Route "${id}" needs param "${key}"`)
      // Each would be a path step of its own (`/projects/..` is `/`), never this route.
      if (value === '' || value === '.' || value === '..') {
        throw new Error(`Route "${id}": param "${key}" cannot be ${JSON.stringify(value)}: that URL would not reach the route`)
      }
      path += encodeURIComponent(value) + parts[i + 1]!
    }
    return path
  }

  return { routes, layouts, layoutsOf, match, href: href as Router<Table>['href'] }
}
