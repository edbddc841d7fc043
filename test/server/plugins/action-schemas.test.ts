/**
 * Action fields declared with schemas, as the server answers them: the fixture's
 * /booking (test/fixtures/app/routes.ts) mixes the foundation's builders with a valibot
 * field and has a form declared by one valibot schema; the demo's contact form, star and
 * sign-in declare theirs with the builders. A refused value never reaches the action.
 */
import t from 'tap'
import { createTestApp } from '../../helpers/app.js'
import { formsOf } from '../../helpers/secret-forms.js'
import { receivedInputs } from '../../fixtures/app/server.js'

const ORIGIN = 'http://localhost:80' // what app.inject's requests are addressed to

function post(url: string, body: string, headers: Record<string, string> = {}) {
  return {
    method: 'POST' as const,
    url,
    payload: body,
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN, ...headers },
  }
}

const PIN = '80417'
const BOOK = new URLSearchParams({
  _action: 'book',
  day: '2026-03-04',
  guests: '2',
  room: 'double',
  breakfast: 'on',
  code: 'ABC',
  note: '',
  pin: PIN,
})
const book = (changes: Record<string, string>) => {
  const body = new URLSearchParams(BOOK)
  for (const [name, value] of Object.entries(changes)) body.set(name, value)
  return body.toString()
}
const JSON_ACCEPT = { accept: 'application/json' }

/** The start tag of the form control named `name`, and what follows it up to the next control. */
function control(body: string, name: string, form?: string): { tag: string; after: string } {
  const scope = form ? body.slice(body.indexOf(`class="${form}"`)) : body
  const found = new RegExp(`<(?:input|textarea)[^>]* name="${name}"[^>]*>([^]*?)(?=<(?:input|textarea|button)|$)`).exec(scope)
  if (!found) throw new Error(`no control named ${name}`)
  return { tag: found[0].slice(0, found[0].indexOf('>') + 1), after: found[1]! }
}

/** The attributes of a start tag, as a record (a bare attribute is ''). */
function attributes(tag: string): Record<string, string> {
  return Object.fromEntries([...tag.matchAll(/ ([a-zA-Z-]+)(?:="([^"]*)")?/g)].map(([, name, value]) => [name!.toLowerCase(), value ?? '']))
}

t.test('fields declared with schemas, on the fixture', async (t) => {
  const { app } = await createTestApp(t, 'fixture')

  t.test('the action receives typed values: a number, a date, a boolean, an enum, an absent optional', async (t) => {
    const res = await app.inject(post('/booking', BOOK.toString()))
    t.equal(res.statusCode, 303)
    t.equal(res.headers.location, '/booking?booked=1')
    t.same(receivedInputs.at(-1), {
      action: 'book',
      input: { day: new Date(Date.UTC(2026, 2, 4)), guests: 2, room: 'double', breakfast: true, code: 'ABC', note: undefined, pin: PIN },
    })
    const unticked = await app.inject(post('/booking', book({}).replace('&breakfast=on', '')))
    t.equal(unticked.statusCode, 303)
    t.equal(receivedInputs.at(-1)!.input.breakfast, false, 'an unticked checkbox sends nothing: false')
  })

  t.test('without JavaScript: the page again with 422, each message by its field, the other values kept, the secret not', async (t) => {
    const before = receivedInputs.length
    const res = await app.inject(post('/booking', book({ day: '2026-02-30', guests: 'two', code: 'abc', note: 'far too long a note' })))
    t.equal(res.statusCode, 422)
    t.equal(res.headers['cache-control'], 'private, no-store')
    const refusals: Array<[string, string]> = [
      ['day', 'Enter a date from 2026-01-01.'],
      ['guests', 'Enter a whole number from 1 to 8.'],
      ['code', 'Three capital letters.'],
      ['note', 'Use at most 10 characters.'],
    ]
    for (const [name, message] of refusals) {
      const { tag, after } = control(res.body, name)
      t.equal(attributes(tag)['aria-invalid'], 'true', name)
      t.match(after, `<span class="field-error" id="${attributes(tag)['aria-describedby']}">${message}</span>`, name)
    }
    t.equal(attributes(control(res.body, 'guests').tag).value, 'two', 'a refused value comes back as typed')
    t.equal(attributes(control(res.body, 'room').tag).value, 'double', 'an accepted one too')
    t.match(attributes(control(res.body, 'breakfast').tag), { checked: '' }, 'a ticked checkbox stays ticked')
    for (const form of formsOf(PIN)) t.notMatch(res.body, form, 'the secret field is not sent back')
    t.notMatch(control(res.body, 'room').after, 'field-error', 'a valid field has no error')
    t.equal(receivedInputs.length, before, 'the action never ran')
  })

  t.test('the inputs carry the constraint attributes their builders declare; the valibot field none', async (t) => {
    const { body } = await app.inject('/booking')
    const constraints = (name: string) => {
      const { id: _id, name: _name, ...rest } = attributes(control(body, name).tag)
      return rest
    }
    t.same(constraints('day'), { type: 'date', required: '', min: '2026-01-01' })
    t.same(constraints('guests'), { type: 'number', required: '', min: '1', max: '8' })
    t.same(constraints('room'), { required: '' })
    t.same(constraints('note'), { maxlength: '10' })
    t.same(constraints('pin'), { required: '', minlength: '4', pattern: '[0-9]+' })
    t.same(constraints('breakfast'), { type: 'checkbox' })
    t.same(constraints('code'), {}, 'a Standard Schema gives the browser no hints')
  })

  t.test('with JavaScript: 422 JSON with the field errors and the values but the secret', async (t) => {
    const res = await app.inject(post('/booking', book({ guests: '9', pin: '12' }), JSON_ACCEPT))
    t.equal(res.statusCode, 422)
    t.same(res.json(), {
      ok: false,
      action: 'book',
      fieldErrors: { guests: 'Enter a whole number from 1 to 8.', pin: 'Use at least 4 characters.' },
      values: { day: '2026-03-04', guests: '9', room: 'double', breakfast: 'on', code: 'ABC', note: '' },
    })
  })

  t.test('bad input is a field error or the usual client error, never a server error', async (t) => {
    const missing = await app.inject(post('/booking', '_action=book', JSON_ACCEPT))
    t.equal(missing.statusCode, 422)
    t.same(missing.json().fieldErrors, {
      day: 'Fill in this field.',
      guests: 'Fill in this field.',
      room: 'Fill in this field.',
      code: 'Give the code.',
      pin: 'Fill in this field.',
    })
    const twice = await app.inject(post('/booking', `${BOOK.toString()}&guests=3`, JSON_ACCEPT))
    t.equal(twice.statusCode, 422)
    t.same(twice.json().fieldErrors, { guests: 'This field was sent more than once; send it once.' })
    const wrongType = await app.inject(post('/booking', book({ room: 'suite', guests: '1e3' }), JSON_ACCEPT))
    t.same(wrongType.json().fieldErrors, { guests: 'Enter a whole number from 1 to 8.', room: 'Choose one of: single, double.' })
    const huge = await app.inject(post('/booking', book({ note: 'n'.repeat(2 * 1024 * 1024) })))
    t.equal(huge.statusCode, 413, 'past the form body limit: refused before any schema')
    const long = await app.inject(post('/booking', book({ note: 'n'.repeat(100_000) }), JSON_ACCEPT))
    t.same(long.json().fieldErrors, { note: 'Use at most 10 characters.' })
  })

  t.test('one valibot schema for the whole form: its output, or its messages by field', async (t) => {
    const ok = await app.inject(post('/booking', '_action=register&name=+Ada+&age=36'))
    t.equal(ok.statusCode, 303)
    t.same(receivedInputs.at(-1), { action: 'register', input: { name: 'Ada', age: 36 } })

    const refused = await app.inject(post('/booking', '_action=register&name=Ada&age=12'))
    t.equal(refused.statusCode, 422)
    const age = control(refused.body, 'age', 'register')
    t.match(attributes(age.tag), { value: '12', 'aria-invalid': 'true' })
    t.match(age.after, 'Adults only.')
    t.same(attributes(control(refused.body, 'name', 'register').tag).value, 'Ada', 'the valid field kept')
  })
})

t.test("the demo's actions declare their fields with the builders", async (t) => {
  const { app } = await createTestApp(t)

  t.test("the contact form's inputs carry its rules as constraint attributes", async (t) => {
    const { body } = await app.inject('/contact')
    t.match(attributes(control(body, 'name').tag), { required: '', maxlength: '80' })
    t.match(attributes(control(body, 'email').tag), { type: 'email', required: '', maxlength: '254' })
    t.match(attributes(control(body, 'message').tag), { required: '', maxlength: '2000' })
  })

  t.test('a star for a list that does not exist, or a wrong answer, is refused by the schema in its words', async (t) => {
    for (const body of ['_action=star&id=11&starred=yes', '_action=star&id=abc&starred=yes', '_action=star&id=-1&starred=yes']) {
      const res = await app.inject(post('/items/3', body, JSON_ACCEPT))
      t.equal(res.statusCode, 422, body)
      t.same(res.json().fieldErrors, { id: 'There is no such list to star.' }, body)
    }
    const maybe = await app.inject(post('/items/3', '_action=star&id=3&starred=maybe'))
    t.equal(maybe.statusCode, 422)
    t.match(maybe.body, '<p class="form-error" role="alert">Choose one of: yes, no.</p>', 'a hidden field: said by the form')
    const missing = await app.inject(post('/items/3', '_action=star&starred=yes', JSON_ACCEPT))
    t.same(missing.json().fieldErrors, { id: 'Fill in this field.' }, 'missing: the default words')
    const ok = await app.inject(post('/items/3', '_action=star&id=3&starred=yes'))
    t.equal(ok.statusCode, 303)
  })

  t.test('a sign-in without a password: its field error, the email kept, nothing checked', async (t) => {
    const res = await app.inject(post('/login', '_action=signIn&email=demo%40example.com&password=&next=%2Faccount'))
    t.equal(res.statusCode, 422)
    t.equal(attributes(control(res.body, 'email').tag).value, 'demo@example.com')
    t.match(control(res.body, 'password').after, 'Fill in this field.')
  })
})
