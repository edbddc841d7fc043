/**
 * An action's fields read against their declaration: the foundation's builders, any
 * Standard Schema per field or for the whole form (valibot here, and hand-written ones
 * for what a library may do: answer later, point deep into a value), and the constraint
 * attributes the builders give the browser.
 */
import t from 'tap'
import * as v from 'valibot'
import * as field from '../../shared/framework/form-field.js'
import { constraintsOf, type FieldDecl } from '../../shared/framework/form-field.js'
import { GIVEN_TWICE, parseField, readActionInput } from '../../shared/framework/action-input.js'
import type { ActionFieldsDecl } from '../../shared/framework/action-fields.js'
import type { StandardSchemaV1 } from '../../shared/framework/standard-schema.js'

const form = (query: string) => new URLSearchParams(query)

t.test('each builder takes what it declares and refuses the rest in plain words', async (t) => {
  const cases: Array<[string, FieldDecl<unknown>, string | undefined, { value: unknown } | { error: string }]> = [
    ['text, trimmed', field.text(), '  Ada  ', { value: 'Ada' }],
    ['text kept as typed', field.text({ trim: false }), ' pass word ', { value: ' pass word ' }],
    ['text missing', field.text(), undefined, { error: 'Fill in this field.' }],
    ['text only spaces', field.text(), '   ', { error: 'Fill in this field.' }],
    ['text optional, empty', field.text({ optional: true }), '', { value: undefined }],
    ['text too long', field.text({ maxLength: 3 }), 'abcd', { error: 'Use at most 3 characters.' }],
    ['text at its limit', field.text({ maxLength: 3 }), 'abc', { value: 'abc' }],
    ['text too short', field.text({ minLength: 4 }), 'abc', { error: 'Use at least 4 characters.' }],
    ['text against its pattern, whole', field.text({ pattern: '[0-9]+' }), '12a', { error: 'Use the format asked for.' }],
    ['text matching its pattern', field.text({ pattern: '[0-9]+' }), '123', { value: '123' }],
    ['email', field.email(), 'ada@example.com', { value: 'ada@example.com' }],
    ['email without a domain dot', field.email(), 'ada@example', { error: 'Enter an email address.' }],
    ['email too long', field.email(), `${'a'.repeat(250)}@b.cd`, { error: 'Enter an email address.' }],
    ['int', field.int({ min: 1, max: 8 }), '3', { value: 3 }],
    ['int, not a number', field.int({ min: 1, max: 8 }), 'three', { error: 'Enter a whole number from 1 to 8.' }],
    ['int, a fraction', field.int(), '2.5', { error: 'Enter a whole number.' }],
    ['int above its maximum', field.int({ max: 8 }), '9', { error: 'Enter a whole number up to 8.' }],
    ['int past a safe integer', field.int(), '9'.repeat(17), { error: 'Enter a whole number.' }],
    ['oneOf', field.oneOf(['yes', 'no']), 'yes', { value: 'yes' }],
    ['oneOf, another', field.oneOf(['yes', 'no']), 'maybe', { error: 'Choose one of: yes, no.' }],
    ['checkbox ticked', field.checkbox(), 'on', { value: true }],
    ['checkbox not sent', field.checkbox(), undefined, { value: false }],
    ['date', field.date(), '2026-03-04', { value: new Date(Date.UTC(2026, 2, 4)) }],
    ['date that does not exist', field.date(), '2026-02-30', { error: 'Enter a date.' }],
    ['date out of shape', field.date(), '2026-13-45', { error: 'Enter a date.' }],
    ['date before its minimum', field.date({ min: '2026-01-01' }), '2025-12-31', { error: 'Enter a date from 2026-01-01.' }],
    ['the declaration’s own words', field.int({ messages: { missing: 'How many?', invalid: 'A count.' } }), 'x', { error: 'A count.' }],
    ['the declaration’s own words, missing', field.int({ messages: { missing: 'How many?' } }), '', { error: 'How many?' }],
  ]
  for (const [name, decl, raw, expected] of cases) t.same(parseField(decl, raw), expected, name)
})

t.test('the builders give the browser its own constraint attributes', async (t) => {
  t.same(constraintsOf(field.text({ maxLength: 80 })), { required: true, maxLength: 80 })
  t.same(constraintsOf(field.text({ optional: true, minLength: 2, pattern: '[a-z]+' })), { minLength: 2, pattern: '[a-z]+' })
  t.same(constraintsOf(field.email()), { type: 'email', required: true, maxLength: 254 })
  t.same(constraintsOf(field.int({ min: 1, max: 8 })), { type: 'number', required: true, min: 1, max: 8 })
  t.same(constraintsOf(field.date({ min: '2026-01-01', optional: true })), { type: 'date', min: '2026-01-01' })
  t.same(constraintsOf(field.checkbox()), { type: 'checkbox' }, 'a checkbox is never required: unticked is an answer')
  t.same(constraintsOf(field.oneOf(['a', 'b'])), { required: true })
})

t.test('a form read against its builders: typed values, every refusal at once, what was sent kept', async (t) => {
  const decl = { guests: field.int({ min: 1 }), room: field.oneOf(['single', 'double']), breakfast: field.checkbox() } as const
  t.same(await readActionInput(decl, form('guests=2&room=double&breakfast=on')), {
    ok: true,
    input: { guests: 2, room: 'double', breakfast: true },
    values: { guests: '2', room: 'double', breakfast: 'on' },
  })
  t.same(await readActionInput(decl, form('guests=0&room=suite')), {
    ok: false,
    fieldErrors: { guests: 'Enter a whole number from 1.', room: 'Choose one of: single, double.' },
    values: { guests: '0', room: 'suite', breakfast: '' },
  })
})

t.test('a field sent twice is refused, whichever declaration', async (t) => {
  const twice = form('guests=1&guests=8&room=single')
  t.same(await readActionInput({ guests: field.int(), room: field.oneOf(['single']) }, twice), {
    ok: false,
    fieldErrors: { guests: GIVEN_TWICE },
    values: { guests: '1', room: 'single' },
  })
  const whole = v.object({ guests: v.string(), room: v.string() })
  t.match(await readActionInput(whole, twice), { ok: false, fieldErrors: { guests: GIVEN_TWICE } })
  t.same(await readActionInput(['guests'], twice), { ok: true, input: { guests: '1' }, values: { guests: '1' } }, 'names alone: as before')
})

t.test('a Standard Schema per field: its output, or its first message as the field error', async (t) => {
  const decl = { code: v.pipe(v.string('Give the code.'), v.regex(/^[A-Z]{3}$/, 'Three capital letters.')), count: field.int() }
  t.same(await readActionInput(decl, form('code=ABC&count=2')), { ok: true, input: { code: 'ABC', count: 2 }, values: { code: 'ABC', count: '2' } })
  t.match(await readActionInput(decl, form('code=abc&count=2')), { ok: false, fieldErrors: { code: 'Three capital letters.' } })
  t.match(await readActionInput(decl, form('count=2')), { ok: false, fieldErrors: { code: 'Give the code.' } }, 'absent: the schema gets undefined')
})

t.test('a whole-form Standard Schema: issues go to the field their path starts with', async (t) => {
  const schema = v.object({
    name: v.pipe(v.string(), v.trim(), v.nonEmpty('Say your name.')),
    age: v.pipe(v.string(), v.transform(Number), v.number(), v.minValue(18, 'Adults only.')),
  })
  t.same(await readActionInput(schema, form('_action=register&name=+Ada+&age=36')), {
    ok: true,
    input: { name: 'Ada', age: 36 },
    values: { name: ' Ada ', age: '36' },
  })
  t.same(await readActionInput(schema, form('_action=register&name=+&age=12')), {
    ok: false,
    fieldErrors: { name: 'Say your name.', age: 'Adults only.' },
    values: { name: ' ', age: '12' },
  })
})

/** As a library may write one: the answer later, issues deep in the value, paths as segments or keys. */
function handWritten(validate: (value: unknown) => Promise<StandardSchemaV1.Result<unknown>>): StandardSchemaV1 {
  return { '~standard': { version: 1, vendor: 'test', validate } }
}

t.test('an asynchronous validator is awaited; a nested path names its first step', async (t) => {
  const whole = handWritten(async (value) => {
    await new Promise((resolve) => setImmediate(resolve))
    const { email } = value as { email?: string }
    if (email === 'taken@example.com') {
      return {
        issues: [
          { message: 'That address has an account already.', path: [{ key: 'email' }, 'domain'] },
          { message: 'A later issue of the same field is not shown.', path: ['email'] },
          { message: 'Check the form.' },
        ],
      }
    }
    return { value: { email } }
  })
  t.same(await readActionInput(whole, form('email=taken%40example.com')), {
    ok: false,
    fieldErrors: { email: 'That address has an account already.' },
    formError: 'Check the form.',
    values: { email: 'taken@example.com' },
  })
  t.match(await readActionInput(whole, form('email=new%40example.com')), { ok: true, input: { email: 'new@example.com' } })

  const perField: ActionFieldsDecl = {
    address: handWritten(async () => ({ issues: [{ message: 'No such street.', path: [{ key: 'street' }, 0] }] })),
  }
  t.match(
    await readActionInput(perField, form('address=x')),
    { ok: false, fieldErrors: { address: 'No such street.' } },
    "inside a field's schema: the field's",
  )
})

t.test('a validator that throws is not a refusal: the caller answers it as the action failing', async (t) => {
  const broken = handWritten(async () => {
    throw new Error('the validator broke')
  })
  await t.rejects(readActionInput({ code: broken }, form('code=1')), { message: 'the validator broke' })
})
