/**
 * Typed search params (docs/guide/adding-a-page.md, "Query parameters"): a route declares
 * the query it reads, `search: { q: searchParam.text(), page: searchParam.int({ default: 1, min: 1 }) }`;
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
  /** The value, or undefined when `raw` is not one this parameter takes. */
  readonly parse: (raw: string) => T | undefined
  readonly format: (value: T) => string
  readonly default?: T
  /** What it takes, for the 400's message: "a whole number from 1 to 50". */
  readonly takes: string
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

type WithDefault<T, O> = O extends { readonly default: T } ? SearchParamDecl<T, true> : SearchParamDecl<T, false>

const MAX_LENGTH = 2000

export const searchParam = {
  /** Any text (at most `maxLength` characters, 2000 by default). */
  text<const O extends { readonly default?: string; readonly maxLength?: number } = {}>(options?: O): WithDefault<string, O> {
    const max = options?.maxLength ?? MAX_LENGTH
    return declared(
      { parse: (raw) => (raw.length <= max ? raw : undefined), format: (value) => value, takes: `text of at most ${max} characters` },
      options,
    )
  },
  /** A whole number, between `min` and `max` when given. */
  int<const O extends { readonly default?: number; readonly min?: number; readonly max?: number } = {}>(options?: O): WithDefault<number, O> {
    const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = options ?? {}
    const range =
      options?.min !== undefined
        ? options.max !== undefined
          ? ` from ${min} to ${max}`
          : ` from ${min}`
        : options?.max !== undefined
          ? ` up to ${max}`
          : ''
    return declared(
      {
        parse: (raw) => {
          if (!/^-?[0-9]{1,16}$/.test(raw)) return undefined
          const value = Number(raw)
          return Number.isSafeInteger(value) && value >= min && value <= max ? value : undefined
        },
        format: String,
        takes: `a whole number${range}`,
      },
      options,
    )
  },
  /** One of `values`. */
  oneOf<const V extends string, const O extends { readonly default?: NoInfer<V> } = {}>(values: readonly V[], options?: O): WithDefault<V, O> {
    return declared(
      {
        parse: (raw) => values.find((value) => value === raw),
        format: (value) => value,
        takes: `one of ${values.map((value) => JSON.stringify(value)).join(', ')}`,
      },
      options,
    )
  },
}

function declared<T, O extends { readonly default?: unknown } | undefined>(decl: SearchParamDecl<T>, options: O): never {
  return (options?.default !== undefined ? { ...decl, default: options.default as T } : decl) as never
}

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
    const value = param.parse(given[0]!)
    if (value === undefined) throw new SearchParamError(`The query parameter "${name}" must be ${param.takes}.`)
    values[name] = value
  }
  return values
}

/** `?name=value&...` for `href()`: declared names only, in declaration order, a default's own value left out. */
export function formatSearch(decl: SearchDecl | undefined, input: Readonly<Record<string, unknown>> | undefined): string {
  if (!decl || !input) return ''
  const query = new URLSearchParams()
  for (const [name, param] of Object.entries(decl)) {
    const value = input[name]
    if (value === undefined || value === param.default) continue
    query.append(name, param.format(value))
  }
  const text = query.toString()
  return text ? `?${text}` : ''
}
