/**
 * The route machinery both sides share: how a route is declared, the types derived
 * from its pattern, `matchRoute` and `href`. It knows nothing of the application's own
 * routes (shared/routes.ts) so tests can give the app a fixture table of their own.
 *
 * Patterns are made of literal segments and `:name` segments; a `:name` matches one
 * non-empty segment. Matching works on the raw (percent-encoded) pathname, the way
 * the browser's `location.pathname` and the HTTP request line carry it; params are
 * decoded once matched. A route may restrict each param with a RegExp tested against
 * the decoded value: a path whose params fail it does not match (it is a 404).
 *
 * Layouts (docs/architecture.md, "Layouts") are declared beside the routes: a route
 * names its layout, a layout names its parent, and the one layout without a parent is
 * the root, around every page (the not-found and error pages included). A layout may
 * have data of its own (a loader on the server), typed here like a page's.
 */
import type { FileFieldsDecl, FilesDecl } from './uploads.js'
import type { GuardDecl, OwnGuard, ScopeOf } from './guard-declaration.js'
import type { SecretsDecl, SecretsFor } from './secret-fields.js'
import { compile, decodeParam } from './route-pattern.js'
import type { WithoutDeferred } from './deferred.js'
import type { PrefetchMode } from './prefetch-mode.js'
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

/** The params object of a pattern: one string per `:name`. */
export type ParamsOf<Pattern extends string> = { [K in ParamNames<Pattern>]: string }

/**
 * A route's actions, by name, each with the names of the fields its form posts:
 * `{ send: ['name', 'email'] }`.
 */
export type ActionsDecl = { readonly [action: string]: readonly string[] }

/**
 * A layout as declared: its id (the key it has in the layout table), its render mode
 * (whose rules its data follows: cached and shared when static, per request when
 * dynamic), its parent and its actions. `Data` is carried only in the type; a layout
 * declared with `layout()` has no data and needs no loader.
 */
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
  /** Set when the layout has a guard of its own (its server module gives it). */
  readonly guard?: GuardDecl | undefined
  /** The secret fields of those actions: never sent back with a refused form. */
  readonly secrets?: Secrets
  /** Phantom field: the type of the layout's data. Always undefined at run time. */
  readonly __data?: Data
  /** Phantom field: what the nearest guard passes beneath this layout. Always undefined at run time. */
  readonly __guard?: { readonly value: Guarded }
}

export type AnyLayout = LayoutDef<string, any, RenderMode, any, any, any>
/** A static layout: every layout above it is static too and none is guarded, so a static page may sit in it. */
export type StaticLayout = LayoutDef<string, any, 'static', any, any, never> & { readonly guard?: undefined }
export type LayoutTable = Readonly<Record<string, AnyLayout>>

/** The data of a layout: `undefined` for one declared without (`layout()`). */
export type LayoutDataOf<L> = L extends LayoutDef<string, infer D, any, any, any, any> ? D : never

/**
 * Declares a layout whose data has type `Data` (none when omitted):
 * `layout<ItemsLayoutData>()({ id: 'items', mode: 'static', parent: rootLayout })`.
 * A static layout's parent must be static (its answer is shared; a parent's per-request
 * data would leak into it): the type checker refuses a dynamic one.
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

/** A route as declared in a table. `Data` is carried only in the type (never at run time). */
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
  /** Extra checks on params: a param whose decoded value fails its RegExp is a 404. */
  readonly params?: { readonly [K in ParamNames<Pattern>]?: RegExp }
  /** Phantom field: the type of the route's page data. Always undefined at run time. */
  readonly __data?: Data
  /** The route's server actions and the fields each one reads. */
  readonly actions?: Actions
  /** The file fields of those actions that take files (shared/framework/uploads.ts): they accept multipart forms. */
  readonly files?: Files
  /** The secret fields of those actions (a password, a card number): never sent back with a refused form. */
  readonly secrets?: Secrets
  /**
   * Stream the HTML (React's pipeable stream) instead of rendering it whole. Only pays
   * for pages that suspend (lazy parts, `use()`): the loader has the data ready before
   * rendering, and a whole-string render is about twice as fast (docs/decisions/008).
   */
  readonly stream?: boolean
  /** When links prefetch the page: see `PrefetchMode`. */
  readonly prefetch?: PrefetchMode | undefined
  /** The layout the page sits in; none: the root layout. */
  readonly layout?: AnyLayout | undefined
  /** Set when the route has a guard of its own (its server module gives it). */
  readonly guard?: GuardDecl | undefined
  /** Phantom field: what the nearest guard passes to this route's loader and actions. Always undefined at run time. */
  readonly __guard?: { readonly value: Guarded }
}

export type AnyRoute = RouteDef<string, any, any, any, any, any>
export type RouteTable = Readonly<Record<string, AnyRoute>>

export type DataOf<R> = R extends RouteDef<string, infer D, any, any, any, any> ? D : never
export type PatternOf<R> = R extends RouteDef<infer P, any, any, any, any, any> ? P : never
/** The actions a route or a layout declares. */
export type ActionsOf<R> = R extends { readonly actions?: infer A extends ActionsDecl } ? A : {}
/** The names of a route's actions (`never` for a route without). */
export type ActionName<R> = keyof ActionsOf<R> & string
/** The field names of one action: `'name' | 'email'`. */
export type ActionFields<R, A extends string> = ActionsOf<R> extends { readonly [K in A]: readonly (infer F)[] } ? F & string : never
/** The file fields a route declares, by action (a layout declares none). */
export type FilesOf<R> = R extends { readonly files?: infer F extends FilesDecl } ? F : {}
/** The file field names of one action: `'attachment'` (`never` for an action without files). */
export type ActionFileFields<R, A extends string> = FilesOf<R> extends { readonly [K in A]: infer F } ? keyof F & string : never
export type RouteParams<R> = ParamsOf<PatternOf<R>>
/** `href()`'s arguments after the route id: its params (none for a route without), then its query, typed. */
export type HrefArgs<R> = [ParamNames<PatternOf<R>>] extends [never]
  ? [params?: Readonly<Record<string, never>>, search?: SearchInput<SearchOf<R>>]
  : [params: RouteParams<R>, search?: SearchInput<SearchOf<R>>]

/**
 * Declares a route whose page data has type `Data`:
 * `route<ItemData>()({ pattern: '/items/:id', mode: 'dynamic', params: { id: /^\d+$/ } })`,
 * and its actions, if it has any: `actions: { send: ['name', 'email', 'message'] }`,
 * with the file fields of those that take files:
 * `files: { send: { attachment: { types: ['application/pdf'], maxBytes: 5 * MiB } } }`,
 * and the secret fields of those that have any: `secrets: { signIn: ['password'] }`.
 * (Curried so `Data` is given while the pattern and actions are still inferred.)
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
    // Keyed the same way, each naming only its own action's fields.
    secrets?: Secrets & { readonly [A in Exclude<keyof Secrets, keyof Actions>]: never }
    stream?: boolean
    prefetch?: PrefetchMode
    search?: Search
    /** A static page may sit only in a static, unguarded layout: the type checker refuses another. */
    layout?: Layout & (Mode extends 'static' ? StaticLayout : AnyLayout)
    /** A static page is shared by every visitor: it cannot be guarded. */
    guard?: Mode extends 'static' ? never : GuardDecl<Value>
  }): RouteDef<Pattern, Data, Actions, Files, Secrets, ScopeOf<Value, Layout>> & { readonly mode: Mode; readonly search?: Search } & OwnGuard<
      Mode,
      Value
    > => def as never
}

/** A route's render mode as declared (`'static'` or `'dynamic'`), when the table says which. */
export type ModeOf<R> = R extends { readonly mode: infer M extends RenderMode } ? M : RenderMode

/** A successful match: which route, and its decoded, validated params. */
export interface RouteMatch<Table extends RouteTable = RouteTable> {
  readonly id: keyof Table & string
  readonly route: Table[keyof Table]
  readonly params: Record<string, string>
}

/** A table compiled once for matching. Route order is match order: first match wins. */
export interface Router<Table extends RouteTable, Layouts extends LayoutTable = LayoutTable> {
  readonly routes: Table
  readonly layouts: Layouts
  /**
   * The layouts around a route's page, the root first; around a path no route matches,
   * the root alone. Empty for an application without layouts.
   */
  layoutsOf(routeId: string | undefined): readonly AnyLayout[]
  /** The route a raw pathname (no search, no hash) names, or null for a 404. */
  match(pathname: string): RouteMatch<Table> | null
  /**
   * The URL of a route: `href('items', { id: '7' })` -> `/items/7` (params encoded);
   * with its query: `href('notes', {}, { q: 'word', page: 2 })` -> `/notes?q=word&page=2`.
   */
  href<Id extends keyof Table & string>(id: Id, ...args: HrefArgs<Table[Id]>): string
}

/**
 * Compiles a route table and, when the application has layouts, its layout table.
 * The rules the types cannot see are checked by the server at start-up
 * (shared/framework/layout-rules.ts), which keeps their messages out of the browser's bundle.
 */
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
      // A failed param check is a 404, not a reason to try the next route: the
      // pattern named this route, only its params were wrong.
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

  function pathOf(id: string, route: AnyRoute, params: Record<string, string>): string {
    return route.pattern.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_, key: string) => {
      const value = params[key]
      if (value === undefined) throw new Error(`Route "${id}" needs param "${key}"`)
      // Each would be a path step of its own (`/projects/..` is `/`), never this route.
      if (value === '' || value === '.' || value === '..') {
        throw new Error(`Route "${id}": param "${key}" cannot be ${JSON.stringify(value)}: that URL would not reach the route`)
      }
      return encodeURIComponent(value)
    })
  }

  return { routes, layouts, layoutsOf, match, href: href as Router<Table>['href'] }
}
