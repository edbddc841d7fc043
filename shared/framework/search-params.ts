/**
 * Typed search params (docs/guide/adding-a-page.md, "Query parameters"). A value the
 * route does not take (`?page=abc`, below its minimum, given twice) is a 400 naming the
 * parameter, as a form's field would be refused; an undeclared one (`utm_source`) is ignored.
 */

export interface SearchParamDecl<T, HasDefault extends boolean = boolean> {
  /** As data: the browser needs only `href()`'s `String(value)`; parsing is the server's. */
  readonly kind: 'text' | 'int' | 'oneOf'
  readonly maxLength?: number
  readonly min?: number
  readonly max?: number
  readonly values?: readonly string[]
  readonly default?: T
  /** Phantom: with a default, the loader always gets a value. */
  readonly __hasDefault?: HasDefault
}

export type SearchDecl = { readonly [name: string]: SearchParamDecl<any> }

/** Undefined when missing and without a default. */
export type SearchValues<D> = {
  readonly [K in keyof D]: D[K] extends SearchParamDecl<infer T, infer HasDefault> ? (HasDefault extends true ? T : T | undefined) : never
}

export type SearchInput<D> = [keyof D] extends [never]
  ? Readonly<Record<string, never>>
  : { readonly [K in keyof D]?: D[K] extends SearchParamDecl<infer T, any> ? T : never }

export type SearchOf<R> = R extends { readonly search?: infer S } ? (S extends SearchDecl ? S : {}) : {}

/** `route()` keeps them; `SearchOf` carries their type. */
export function searchDeclOf(route: object): SearchDecl | undefined {
  return (route as { readonly search?: SearchDecl }).search
}

export type WithDefault<T, O> = O extends { readonly default: T } ? SearchParamDecl<T, true> : SearchParamDecl<T, false>

export class SearchParamError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'SearchParamError'
  }
}

/** Throws `SearchParamError` for a value the route does not take. */
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

/** For the 400's message: "a whole number from 1 to 50". */
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

/** A value equal to its default is left out. */
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
