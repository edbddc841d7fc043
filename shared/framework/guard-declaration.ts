/**
 * Guards as the route table declares them (docs/architecture.md, "Guards"): the
 * marker a guarded layout or route carries, and the types that carry what its guard
 * passes down each chain. The guard functions are the server's (server/framework/guards.ts).
 */
import type { RenderMode } from './route-table.js'

/**
 * Marks a layout or a route as guarded (docs/architecture.md, "Guards"): its server
 * module gives the guard, which runs before every loader and action beneath it and
 * passes a `Value` (the signed-in account, say) to each of them. Only the type is
 * carried; the declaration is what lets the type checker and the start refuse a static
 * page under a guard, and the server module's type ask for the guard function.
 */
export interface GuardDecl<Value = unknown> {
  readonly guarded: true
  /** Phantom field: the type of what the guard passes. Always undefined at run time. */
  readonly __value?: Value
}

/** Declares a guard whose value has type `Value`: `guard: guarded<Account>()`. */
export function guarded<Value>(): GuardDecl<Value> {
  return { guarded: true }
}

/**
 * The value the nearest guard above (or on) a layout or route passes to its loaders
 * and actions; `never` when nothing guards it.
 */
export type GuardValueOf<X> = X extends { readonly __guard?: { readonly value: infer V } } ? V : never

/** A declaration's own guard, in its type: none on a static one; required when it declared one. */
export type OwnGuard<Mode extends RenderMode, Value> = Mode extends 'static'
  ? { readonly guard?: undefined }
  : [Value] extends [never]
    ? {}
    : { readonly guard: GuardDecl<Value> }

/** The guard value in scope beneath a declaration: its own guard's, else its parent's. */
export type ScopeOf<Own, Parent> = [Own] extends [never] ? GuardValueOf<Parent> : Own
