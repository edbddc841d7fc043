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
 */

import type { FileFieldsDecl, FilesDecl } from './uploads.js'

export type RenderMode = 'static' | 'dynamic'

/** `'/items/:id/:tab'` -> `'id' | 'tab'` */
export type ParamNames<Pattern extends string> =
  Pattern extends `${string}:${infer Rest}`
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

/** A route as declared in a table. `Data` is carried only in the type (never at run time). */
export interface RouteDef<Pattern extends string = string, Data = unknown, Actions extends ActionsDecl = {}, Files extends FilesDecl = {}> {
  readonly pattern: Pattern
  readonly mode: RenderMode
  /** Extra checks on params: a param whose decoded value fails its RegExp is a 404. */
  readonly params?: { readonly [K in ParamNames<Pattern>]?: RegExp }
  /** Phantom field: the type of the route's page data. Always undefined at run time. */
  readonly __data?: Data
  /** The route's server actions and the fields each one reads. */
  readonly actions?: Actions
  /** The file fields of those actions that take files (shared/uploads.ts): they accept multipart forms. */
  readonly files?: Files
  /**
   * Stream the HTML (React's pipeable stream) instead of rendering it whole. Only pays
   * for pages that suspend (lazy parts, `use()`): the loader has the data ready before
   * rendering, and a whole-string render is about twice as fast (docs/decisions/008).
   */
  readonly stream?: boolean
}

export type AnyRoute = RouteDef<string, any, any, any>
export type RouteTable = Readonly<Record<string, AnyRoute>>

export type DataOf<R> = R extends RouteDef<string, infer D, any> ? D : never
export type PatternOf<R> = R extends RouteDef<infer P, any, any> ? P : never
export type ActionsOf<R> = R extends RouteDef<string, any, infer A> ? A : {}
/** The names of a route's actions (`never` for a route without). */
export type ActionName<R> = keyof ActionsOf<R> & string
/** The field names of one action: `'name' | 'email'`. */
export type ActionFields<R, A extends string> = ActionsOf<R> extends { readonly [K in A]: readonly (infer F)[] }
  ? F & string
  : never
export type FilesOf<R> = R extends RouteDef<string, any, any, infer F> ? F : {}
/** The file field names of one action: `'attachment'` (`never` for an action without files). */
export type ActionFileFields<R, A extends string> = FilesOf<R> extends { readonly [K in A]: infer F } ? keyof F & string : never
export type RouteParams<R> = ParamsOf<PatternOf<R>>

/**
 * Declares a route whose page data has type `Data`:
 * `route<ItemData>()({ pattern: '/items/:id', mode: 'dynamic', params: { id: /^\d+$/ } })`,
 * and its actions, if it has any: `actions: { send: ['name', 'email', 'message'] }`,
 * with the file fields of those that take files:
 * `files: { send: { attachment: { types: ['application/pdf'], maxBytes: 5 * MiB } } }`.
 * (Curried so `Data` is given while the pattern and actions are still inferred.)
 */
export function route<Data>() {
  return <
    const Pattern extends string,
    const Mode extends RenderMode,
    const Actions extends ActionsDecl = {},
    const Files extends FilesDecl & { readonly [A in keyof Actions]?: FileFieldsDecl } = {},
  >(def: {
    pattern: Pattern
    mode: Mode
    params?: { readonly [K in ParamNames<Pattern>]?: RegExp }
    actions?: Actions
    // Keyed by the route's own actions only: files for an action it does not declare do not compile.
    files?: Files & { readonly [A in Exclude<keyof Files, keyof Actions>]: never }
    stream?: boolean
  }): RouteDef<Pattern, Data, Actions, Files> & { readonly mode: Mode } => def
}

/** A route's render mode as declared (`'static'` or `'dynamic'`), when the table says which. */
export type ModeOf<R> = R extends { readonly mode: infer M extends RenderMode } ? M : RenderMode

/** The methods a page answers (its `Allow` header): POST only when it declares actions. */
export function allowedMethods(route: AnyRoute): string {
  return Object.keys(route.actions ?? {}).length > 0 ? 'GET, HEAD, POST' : 'GET, HEAD'
}

/** A successful match: which route, and its decoded, validated params. */
export interface RouteMatch<Table extends RouteTable = RouteTable> {
  readonly id: keyof Table & string
  readonly route: Table[keyof Table]
  readonly params: Record<string, string>
}

interface CompiledRoute {
  readonly id: string
  readonly route: AnyRoute
  readonly regexp: RegExp
  readonly keys: readonly string[]
}

const SEGMENT_PARAM = /^:([A-Za-z_][A-Za-z0-9_]*)$/

function compile(id: string, route: AnyRoute): CompiledRoute {
  if (!route.pattern.startsWith('/')) {
    throw new Error(`Route "${id}": pattern "${route.pattern}" must start with "/"`)
  }
  const keys: string[] = []
  const source = route.pattern
    .split('/')
    .slice(1)
    .map((segment) => {
      const param = SEGMENT_PARAM.exec(segment)
      if (param) {
        keys.push(param[1]!)
        return '/([^/]+)'
      }
      if (segment.includes(':')) {
        throw new Error(`Route "${id}": segment "${segment}" is not a valid param name`)
      }
      return '/' + segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    })
    .join('')
  return { id, route, keys, regexp: new RegExp(`^${source === '/' ? '/' : source}$`) }
}

function decodeParam(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw)
  } catch {
    return undefined // malformed percent-encoding: no match, so a 404, never a crash
  }
}

/** A table compiled once for matching. Route order is match order: first match wins. */
export interface Router<Table extends RouteTable> {
  readonly routes: Table
  /** The route a raw pathname (no search, no hash) names, or null for a 404. */
  match(pathname: string): RouteMatch<Table> | null
  /** The URL of a route: `href('items', { id: '7' })` -> `/items/7` (params encoded). */
  href<Id extends keyof Table & string>(
    id: Id,
    ...params: ParamNames<PatternOf<Table[Id]>> extends never ? [] : [RouteParams<Table[Id]>]
  ): string
}

export function createRouter<const Table extends RouteTable>(routes: Table): Router<Table> {
  const compiled = Object.entries(routes).map(([id, route]) => compile(id, route))

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

  function href(id: string, params: Record<string, string> = {}): string {
    const route = routes[id]
    if (!route) throw new Error(`Unknown route "${id}"`)
    return route.pattern.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_, key: string) => {
      const value = params[key]
      if (value === undefined) throw new Error(`Route "${id}" needs param "${key}"`)
      return encodeURIComponent(value)
    })
  }

  return { routes, match, href: href as Router<Table>['href'] }
}
