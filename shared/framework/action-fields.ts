/**
 * What an action declares in the route table (docs/guide/forms-and-actions.md, "Field
 * schemas"): its field names (each received as a string), a schema per field (the
 * foundation's builders or any Standard Schema), or one Standard Schema for the whole form.
 */
import type { FieldDecl } from './form-field.js'
import type { StandardSchemaV1 } from './standard-schema.js'

export type FieldSchema = FieldDecl<any> | StandardSchemaV1
export type FieldsDecl = { readonly [field: string]: FieldSchema }
export type ActionFieldsDecl = readonly string[] | FieldsDecl | StandardSchemaV1<any, any>

export type FieldNamesOf<D> = D extends readonly (infer F)[]
  ? F & string
  : D extends StandardSchemaV1<infer I, any>
    ? keyof I & string
    : keyof D & string

type FieldValueOf<S> =
  S extends StandardSchemaV1<any, infer O> ? O : S extends FieldDecl<infer T, infer Optional> ? (Optional extends true ? T | undefined : T) : never

/** What the action receives for its declared fields. */
export type InputOf<D> = D extends readonly (infer F extends string)[]
  ? { readonly [K in F]: string }
  : D extends StandardSchemaV1<any, infer O>
    ? O
    : { readonly [K in keyof D]: FieldValueOf<D[K]> }

export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  // arktype's types are functions.
  return (typeof value === 'object' || typeof value === 'function') && value !== null && '~standard' in value
}

/** Undefined for a whole-form schema, whose fields only it knows. */
export function fieldNamesOf(decl: ActionFieldsDecl): readonly string[] | undefined {
  if (Array.isArray(decl)) return decl as readonly string[]
  return isStandardSchema(decl) ? undefined : Object.keys(decl)
}
