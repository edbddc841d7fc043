/**
 * A form's fields read against its action's declaration (docs/guide/forms-and-actions.md,
 * "Field schemas"). Only the server asks, so the messages and checks stay out of the
 * browser's bundle. A refused value is a field error in the declaration's words; what
 * was sent comes back as text for the form to show again.
 */
import { ACTION_FIELD } from './actions.js'
import { IDENTITY_FIELD } from './identity.js'
import { fieldNamesOf, isStandardSchema, type ActionFieldsDecl, type FieldSchema } from './action-fields.js'
import { EMAIL_MAX_LENGTH, type FieldDecl } from './form-field.js'
import type { StandardSchemaV1 } from './standard-schema.js'

export type ReadInput =
  | { readonly ok: true; readonly input: Record<string, unknown>; readonly values: Record<string, string> }
  | { readonly ok: false; readonly fieldErrors: Record<string, string>; readonly formError?: string; readonly values: Record<string, string> }

export const GIVEN_TWICE = 'This field was sent more than once; send it once.'

/** `values`: each field's first value as sent ('' when absent), what a refused form shows again. */
export async function readActionInput(decl: ActionFieldsDecl, form: URLSearchParams): Promise<ReadInput> {
  const names = fieldNamesOf(decl) ?? [...new Set(form.keys())].filter((name) => name !== ACTION_FIELD && name !== IDENTITY_FIELD)
  const values = Object.fromEntries(names.map((name) => [name, form.get(name) ?? '']))
  // A plain list of names: strings as sent, the action checks them.
  if (Array.isArray(decl)) return { ok: true, input: { ...values }, values }

  const fieldErrors: Record<string, string> = {}
  for (const name of names) if (form.getAll(name).length > 1) fieldErrors[name] = GIVEN_TWICE
  if (Object.keys(fieldErrors).length > 0) return { ok: false, fieldErrors, values }

  if (isStandardSchema(decl)) {
    const raw = Object.fromEntries(names.map((name) => [name, form.get(name)!]))
    const result = await decl['~standard'].validate(raw)
    if (!result.issues) return { ok: true, input: result.value as Record<string, unknown>, values }
    let formError: string | undefined
    for (const issue of result.issues) {
      const field = firstKey(issue)
      if (field === undefined) formError ??= issue.message
      else fieldErrors[field] ??= issue.message
    }
    return { ok: false, fieldErrors, ...(formError !== undefined ? { formError } : {}), values }
  }

  const input: Record<string, unknown> = {}
  for (const name of names) {
    const result = await readField((decl as Readonly<Record<string, FieldSchema>>)[name]!, form.get(name) ?? undefined)
    if ('error' in result) fieldErrors[name] = result.error
    else input[name] = result.value
  }
  return Object.keys(fieldErrors).length > 0 ? { ok: false, fieldErrors, values } : { ok: true, input, values }
}

/** The field an issue of a whole-form schema is about: the first step of its path. */
function firstKey(issue: StandardSchemaV1.Issue): string | undefined {
  const step = issue.path?.[0]
  if (step === undefined) return undefined
  const key = typeof step === 'object' && step !== null ? step.key : step
  return typeof key === 'symbol' ? undefined : String(key)
}

type FieldResult = { readonly value: unknown } | { readonly error: string }

/** `raw` undefined: not sent at all (an unticked checkbox). */
export async function readField(schema: FieldSchema, raw: string | undefined): Promise<FieldResult> {
  if (isStandardSchema(schema)) {
    const result = await schema['~standard'].validate(raw)
    // A field's own schema: whatever the issue's path inside it, the error is the field's.
    return result.issues ? { error: result.issues[0]?.message ?? 'This value is not accepted.' } : { value: result.value }
  }
  return parseField(schema, raw)
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const DAY = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/

export function parseField(decl: FieldDecl<unknown>, raw: string | undefined): FieldResult {
  if (decl.kind === 'checkbox') return { value: raw !== undefined }
  const text = decl.trim === false ? (raw ?? '') : (raw ?? '').trim()
  if (text === '') return decl.optional ? { value: undefined } : { error: decl.messages?.missing ?? 'Fill in this field.' }
  const refused = refusal(decl, text)
  return refused === undefined ? { value: valueOf(decl, text) } : { error: decl.messages?.invalid ?? refused }
}

function valueOf(decl: FieldDecl<unknown>, text: string): unknown {
  if (decl.kind === 'int') return Number(text)
  if (decl.kind === 'date') return new Date(`${text}T00:00:00Z`)
  return text
}

/** The default words for a value the field does not take; undefined when it takes it. */
function refusal(decl: FieldDecl<unknown>, text: string): string | undefined {
  const { minLength, maxLength, min, max } = decl
  switch (decl.kind) {
    case 'text':
      if (maxLength !== undefined && text.length > maxLength) return `Use at most ${maxLength} characters.`
      if (minLength !== undefined && text.length < minLength) return `Use at least ${minLength} characters.`
      if (decl.pattern !== undefined && !new RegExp(`^(?:${decl.pattern})$`, 'v').test(text)) return 'Use the format asked for.'
      return undefined
    case 'email':
      return text.length <= (maxLength ?? EMAIL_MAX_LENGTH) && EMAIL.test(text) ? undefined : 'Enter an email address.'
    case 'int': {
      const value = /^-?[0-9]{1,16}$/.test(text) ? Number(text) : NaN
      const inRange = Number.isSafeInteger(value) && (min === undefined || value >= Number(min)) && (max === undefined || value <= Number(max))
      return inRange ? undefined : `Enter a whole number${range(min, max)}.`
    }
    case 'date': {
      const day = DAY.test(text) ? new Date(`${text}T00:00:00Z`) : undefined
      // 2026-02-30 is read as March 2nd: the day must come back as it was written.
      const real = day !== undefined && !Number.isNaN(day.getTime()) && day.toISOString().startsWith(text)
      const inRange = (min === undefined || text >= String(min)) && (max === undefined || text <= String(max))
      return real && inRange ? undefined : `Enter a date${range(min, max)}.`
    }
    case 'oneOf':
      return decl.values?.includes(text) ? undefined : `Choose one of: ${(decl.values ?? []).join(', ')}.`
    case 'checkbox':
      return undefined
  }
}

function range(min: number | string | undefined, max: number | string | undefined): string {
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`
  if (min !== undefined) return ` from ${min}`
  return max !== undefined ? ` up to ${max}` : ''
}
