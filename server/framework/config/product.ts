/**
 * The product's own environment variables, declared like the framework's (variables.ts):
 * read with them at start by the same loader (a bad value stops the start naming it), listed
 * in README.md's table after them, and read back typed from a request or the instance.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Variable } from './variables.js'

export type ValuesOf<V extends readonly Variable[]> = {
  [D in V[number] as D['name']]: D extends Variable<string, infer T> ? T : never
}

export interface ProductConfig<V extends readonly Variable[] = readonly Variable[]> {
  readonly variables: V
  /** The values read at start, typed by the declarations. */
  of(source: FastifyRequest | FastifyInstance): ValuesOf<V>
}

/** `defineConfig([defineVariable({ name, meaning, default, parse })])`, handed to defineServerApp as `config`. */
export function defineConfig<const V extends readonly Variable[]>(variables: V): ProductConfig<V> {
  return {
    variables,
    // A request has `raw`, the instance has not (both have a `server`).
    of: (source) => ('raw' in source ? (source as FastifyRequest).server : (source as FastifyInstance)).config.product as ValuesOf<V>,
  }
}
