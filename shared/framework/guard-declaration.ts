/** Guards as the route table declares them (docs/architecture.md, "Guards"); the guard functions are the server's. */
import type { RenderMode } from './route-table.js'

/**
 * The server module gives the guard, which runs before every loader and action beneath
 * and passes them a `Value`. The declaration lets the type checker and the start refuse
 * a static page under a guard.
 */
export interface GuardDecl<Value = unknown> {
  readonly guarded: true
  /** Phantom: undefined at run time. */
  readonly __value?: Value
}

/** `guard: guarded<Account>()` */
export function guarded<Value>(): GuardDecl<Value> {
  return { guarded: true }
}

/** `never` when nothing guards it. */
export type GuardValueOf<X> = X extends { readonly __guard?: { readonly value: infer V } } ? V : never

/** None on a static declaration; required when it declared one. */
export type OwnGuard<Mode extends RenderMode, Value> = Mode extends 'static'
  ? { readonly guard?: undefined }
  : [Value] extends [never]
    ? {}
    : { readonly guard: GuardDecl<Value> }

/** Its own guard's value, else its parent's. */
export type ScopeOf<Own, Parent> = [Own] extends [never] ? GuardValueOf<Parent> : Own
