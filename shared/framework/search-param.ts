/** Builders of a route's query declaration: data only, so the browser's bundle keeps just these few lines. */
import type { SearchParamDecl, WithDefault } from './search-params.js'

/** At most `maxLength` characters, 2000 by default. */
export function text<const O extends { readonly default?: string; readonly maxLength?: number } = {}>(options?: O): WithDefault<string, O> {
  return { kind: 'text', ...options } satisfies SearchParamDecl<string> as never
}

export function int<const O extends { readonly default?: number; readonly min?: number; readonly max?: number } = {}>(
  options?: O,
): WithDefault<number, O> {
  return { kind: 'int', ...options } satisfies SearchParamDecl<number> as never
}

export function oneOf<const V extends string, const O extends { readonly default?: NoInfer<V> } = {}>(
  values: readonly V[],
  options?: O,
): WithDefault<V, O> {
  return { kind: 'oneOf', values, ...options } satisfies SearchParamDecl<V> as never
}
