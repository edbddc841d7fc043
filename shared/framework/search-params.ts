/**
 * Typed search params (docs/guide/adding-a-page.md, "Query parameters"): a route declares
 * the query it reads, `search: { q: searchParam.text(), page: searchParam.int({ default: 1, min: 1 }) }`
 * (the builders are in ./search-param.ts);
 * its loaders receive them parsed (`search.page` is a number), `href()` takes them typed
 * and writes them, leaving out a value equal to its default.
 *
 * Missing: the default, or undefined without one. Given but not what the route takes
 * (`?page=abc`, `?page=0` below its minimum, a value given twice): the route answers
 * 400, its message naming the parameter and what it takes, as a form's field would be
 * refused. A parameter the route does not declare is ignored (`utm_source`).
 */

/** One declared parameter: how to read and write it, and its default if any. */
export interface SearchParamDecl<T, HasDefault extends boolean = boolean> {
  /**
   * What it takes, as data (the browser needs only `href()`'s `String(value)`; reading
   * a value is the server's, below): any text up to `maxLength`, a whole number between
   * `min` and `max`, or one of `values`.
   */
  readonly kind: 'text' | 'int' | 'oneOf'
  readonly maxLength?: number
  readonly min?: number
  readonly max?: number
  readonly values?: readonly string[]
  readonly default?: T
  /** Phantom: whether it has a default (then the loader always gets a value). */
  readonly __hasDefault?: HasDefault
}

export type SearchDecl = { readonly [name: string]: SearchParamDecl<any> }

/** What a loader receives: each declared parameter parsed, undefined when missing and without a default. */
export type SearchValues<D> = {
  readonly [K in keyof D]: D[K] extends SearchParamDecl<infer T, infer HasDefault> ? (HasDefault extends true ? T : T | undefined) : never
}

/** What `href()` takes: any of the declared parameters (nothing for a route that declares none). */
export type SearchInput<D> = [keyof D] extends [never]
  ? Readonly<Record<string, never>>
  : { readonly [K in keyof D]?: D[K] extends SearchParamDecl<infer T, any> ? T : never }

/** The query parameters a route declares (`{}` for one without). */
export type SearchOf<R> = R extends { readonly search?: infer S } ? (S extends SearchDecl ? S : {}) : {}

/** The query parameters a route declares, at run time (`route()` keeps them; `SearchOf` carries their type). */
export function searchDeclOf(route: object): SearchDecl | undefined {
  return (route as { readonly search?: SearchDecl }).search
}

/** A declaration with a default always gives a value; one without may give undefined. */
export type WithDefault<T, O> = O extends { readonly default: T } ? SearchParamDecl<T, true> : SearchParamDecl<T, false>

/** Why a query does not fit its route's declaration, in words for the 400. */
export class SearchParamError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'SearchParamError'
  }
}

/** The declared parameters of a query, parsed; throws `SearchParamError` for a value the route does not take. */
export function parseSearch(decl: SearchDecl | undefined, query: URLSearchParams): Record<string, unknown> {
  const values: Record<string, unknown> = {}
  if (!decl) return values
  for (const [name, param] of Object.entries(decl)) {
    const given = query.getAll(name)
    if (given.length > 1) throw new SearchParamError(`The query parameter "${name}" is given ${given.length} times; give it once.`)
    if (given.length === 0) {
      values[name] = param.default
      continue
    }
    const value = parseParam(param, given[0]!)
    if (value === undefined) throw new SearchParamError(`The query parameter "${name}" must be ${takes(param)}.`)
    values[name] = value
  }
  return values
}

const MAX_LENGTH = 2000

/** The value of `raw` for `param`, or undefined when it is not one `param` takes. */
function parseParam(param: SearchParamDecl<unknown>, raw: string): unknown {
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = param
  switch (param.kind) {
    case 'text':
      return raw.length <= (param.maxLength ?? MAX_LENGTH) ? raw : undefined
    case 'int': {
      const value = /^-?[0-9]{1,16}$/.test(raw) ? Number(raw) : NaN
      return Number.isSafeInteger(value) && value >= min && value <= max ? value : undefined
    }
    case 'oneOf':
      return param.values?.find((value) => value === raw)
  }
}

/** What `param` takes, for the 400's message: "a whole number from 1 to 50". */
function takes(param: SearchParamDecl<unknown>): string {
  switch (param.kind) {
    case 'text':
      return `text of at most ${param.maxLength ?? MAX_LENGTH} characters`
    case 'int': {
      const { min, max } = param
      return `a whole number${min !== undefined ? ` from ${min}` : ''}${max !== undefined ? (min !== undefined ? ` to ${max}` : ` up to ${max}`) : ''}`
    }
    case 'oneOf':
      return `one of ${(param.values ?? []).map((value) => JSON.stringify(value)).join(', ')}`
  }
}

/** `?name=value&...` for `href()`: declared names only, in declaration order, a default's own value left out. */
export function formatSearch(decl: SearchDecl | undefined, input: Readonly<Record<string, unknown>> | undefined): string {
  if (!decl || !input) return ''
  const query = new URLSearchParams()
  for (const [name, param] of Object.entries(decl)) {
    const value = input[name]
    if (value === undefined || value === param.default) continue
    query.append(name, String(value))
  }
  const text = query.toString()
  return text ? `?${text}` : ''
}
