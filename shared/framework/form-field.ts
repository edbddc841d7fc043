/**
 * Builders of an action's fields (docs/guide/forms-and-actions.md, "Field schemas"), in
 * the route table beside the query's `searchParam`. Data only, as those are: the browser
 * keeps these few lines to write each input's constraint attributes, and the parsing
 * stays on the server (action-input.ts), so no validator reaches the first-load script.
 */

/** A field's own words for its refusals; each has a plain default. */
export interface FieldMessages {
  /** Empty or absent, and not optional. */
  readonly missing?: string
  /** Given, but not a value the field takes. */
  readonly invalid?: string
}

export type FieldKind = 'text' | 'email' | 'int' | 'checkbox' | 'oneOf' | 'date'

export interface FieldDecl<T, Optional extends boolean = boolean> {
  readonly kind: FieldKind
  /** Empty or absent is `undefined` rather than refused. */
  readonly optional?: boolean
  /** Text and email: spaces at either end are dropped unless `false` (a password keeps them). */
  readonly trim?: boolean
  readonly minLength?: number
  readonly maxLength?: number
  /** As the browser's `pattern` reads it: the whole value must match. */
  readonly pattern?: string
  /** A number, or a date as `YYYY-MM-DD`. */
  readonly min?: number | string
  readonly max?: number | string
  readonly values?: readonly string[]
  readonly messages?: FieldMessages
  /** Phantom: what the action receives. */
  readonly __value?: T
  /** Phantom: true when it may be `undefined`. */
  readonly __optional?: Optional
}

interface Common {
  readonly optional?: boolean
  readonly messages?: FieldMessages
}

type OptionalOf<O> = O extends { readonly optional: true } ? true : false

export function text<
  const O extends Common & { readonly minLength?: number; readonly maxLength?: number; readonly pattern?: string; readonly trim?: boolean } = {},
>(options?: O): FieldDecl<string, OptionalOf<O>> {
  return { kind: 'text', ...options }
}

/** One `@`, something on each side, a dot in the domain: at most 254 characters unless said. */
export function email<const O extends Common & { readonly maxLength?: number } = {}>(options?: O): FieldDecl<string, OptionalOf<O>> {
  return { kind: 'email', ...options }
}

export function int<const O extends Common & { readonly min?: number; readonly max?: number } = {}>(options?: O): FieldDecl<number, OptionalOf<O>> {
  return { kind: 'int', ...options }
}

/** Ticked (any value sent) or not (nothing sent): never missing. */
export function checkbox(options?: { readonly messages?: FieldMessages }): FieldDecl<boolean, false> {
  return { kind: 'checkbox', ...options }
}

export function oneOf<const V extends string, const O extends Common = {}>(values: readonly V[], options?: O): FieldDecl<V, OptionalOf<O>> {
  return { kind: 'oneOf', values, ...options }
}

/** A calendar day as `<input type="date">` sends it (`YYYY-MM-DD`), received as that day's midnight UTC. */
export function date<const O extends Common & { readonly min?: string; readonly max?: string } = {}>(options?: O): FieldDecl<Date, OptionalOf<O>> {
  return { kind: 'date', ...options }
}

/** The input attributes a declaration gives, React's names. */
export interface FieldConstraints {
  readonly type?: 'email' | 'number' | 'checkbox' | 'date'
  readonly required?: true
  readonly minLength?: number
  readonly maxLength?: number
  readonly pattern?: string
  readonly min?: number | string
  readonly max?: number | string
}

export const EMAIL_MAX_LENGTH = 254

const TYPES: Partial<Record<FieldKind, FieldConstraints['type']>> = { email: 'email', int: 'number', date: 'date', checkbox: 'checkbox' }

/** What `form.field()` adds to an input: hints for the browser, never the check (the server's). */
export function constraintsOf(decl: FieldDecl<unknown>): FieldConstraints {
  const { kind, minLength, maxLength = kind === 'email' ? EMAIL_MAX_LENGTH : undefined, pattern, min, max } = decl
  // A checkbox is never required: unticked is an answer.
  const required = decl.optional || kind === 'checkbox' ? undefined : true
  const all = { type: TYPES[kind], required, minLength, maxLength, pattern, min, max }
  // Left out rather than undefined: a page's own prop written before the spread stays.
  return Object.fromEntries(Object.entries(all).filter(([, value]) => value !== undefined))
}
