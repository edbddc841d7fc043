/**
 * The builders of a route's query declaration (./search-params.ts), used as
 * `searchParam.int({ default: 1, min: 1 })`. Each returns data: what the parameter
 * takes is read on the server, and the browser's bundle keeps only these few lines.
 */
import type { SearchParamDecl, WithDefault } from './search-params.js'

/** Any text (at most `maxLength` characters, 2000 by default). */
export function text<const O extends { readonly default?: string; readonly maxLength?: number } = {}>(options?: O): WithDefault<string, O> {
  return { kind: 'text', ...options } satisfies SearchParamDecl<string> as never
}

/** A whole number, between `min` and `max` when given. */
export function int<const O extends { readonly default?: number; readonly min?: number; readonly max?: number } = {}>(
  options?: O,
): WithDefault<number, O> {
  return { kind: 'int', ...options } satisfies SearchParamDecl<number> as never
}

/** One of `values`. */
export function oneOf<const V extends string, const O extends { readonly default?: NoInfer<V> } = {}>(
  values: readonly V[],
  options?: O,
): WithDefault<V, O> {
  return { kind: 'oneOf', values, ...options } satisfies SearchParamDecl<V> as never
}
