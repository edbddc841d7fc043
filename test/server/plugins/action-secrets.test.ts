/**
 * Secret fields (docs/guide/forms-and-actions.md, "Secret fields"): the action gets
 * their values, and a refused form comes back without them, whichever way it was
 * refused and answered: not in the 422 page's bootstrap JSON nor in its inputs, not in
 * the JSON answer. The fixture's /strongbox (test/fixtures/app/routes.ts) has the sign-in
 * shape; its `deposit` takes a file; the shelf layout's `unlock` has a secret too.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { formsOf } from '../../helpers/secret-forms.js'
import t, { type Test } from 'tap'
import { listenTestApp } from '../../helpers/app.js'
import { fileOf, multipartBody, send, type FormPart } from '../../helpers/multipart.js'
import { bootstrapOf } from '../../helpers/page-html.js'
import { STRONGBOX_EMAIL, STRONGBOX_PASSWORD } from '../../fixtures/app/routes.js'
import { checkLayoutRules } from '../../../shared/framework/layout-rules.js'
import { createRouter, layout, route, type LayoutTable, type RouteTable } from '../../../shared/framework/route-table.js'

const FORM = 'application/x-www-form-urlencoded'
const JSON_ACCEPT = { accept: 'application/json' }
/** A secret with the characters each answer escapes in its own way. */
const SECRET = `p4ss <b>"w'o&rd"</b> ünï ✓`
const SECRET_PIN = '8642-€'

function assertAbsent(t: Test, text: string, secret: string, what: string) {
  formsOf(secret).forEach((form, i) => t.notOk(text.includes(form), `${what}: not the secret (form ${i})`))
}

t.test('a refused form comes back without its secret fields', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'secret-uploads-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const { app, origin, logs } = await listenTestApp(t, 'fixture', { config: { uploadDir: dir } })
  const post = (url: string, body: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url, payload: body, headers: { 'content-type': FORM, origin: 'http://localhost:80', ...headers } })
  const signIn = new URLSearchParams({ _action: 'signIn', email: STRONGBOX_EMAIL, password: SECRET, next: '/target?from=strongbox' }).toString()

  t.test('the action gets the secret: the right password signs in', async (t) => {
    const right = new URLSearchParams({ _action: 'signIn', email: STRONGBOX_EMAIL, password: STRONGBOX_PASSWORD, next: '/target' }).toString()
    const res = await post('/strongbox', right)
    t.equal(res.statusCode, 303)
    t.equal(res.headers.location, '/target')
  })

  t.test('without JavaScript: the page again, the other values kept, the secret nowhere', async (t) => {
    const res = await post('/strongbox', signIn)
    t.equal(res.statusCode, 422)
    const state = bootstrapOf(res.body).action
    t.same(state, {
      action: 'signIn',
      fieldErrors: { password: 'Wrong email or password.' },
      formError: 'Not signed in.',
      values: { email: STRONGBOX_EMAIL, next: '/target?from=strongbox' },
    })
    t.match(res.body, /<input type="email"[^>]*name="email"[^>]*value="ann@example.com"/, 'the email input keeps what was typed')
    t.match(res.body, /<input type="hidden"[^>]*name="next"[^>]*value="\/target\?from=strongbox"/, 'the hidden field too')
    const password = /<input type="password"[^>]*>/.exec(res.body)?.[0]
    t.ok(password, 'the password input is there')
    t.notMatch(password, /value=/, 'with no value')
    t.match(password, /aria-invalid="true"/, 'and its error wiring')
    assertAbsent(t, res.body, SECRET, 'the page')
  })

  t.test('with JavaScript: the JSON answer has the other values, not the secret', async (t) => {
    const res = await post('/strongbox', signIn, JSON_ACCEPT)
    t.equal(res.statusCode, 422)
    t.same(res.json().values, { email: STRONGBOX_EMAIL, next: '/target?from=strongbox' })
    assertAbsent(t, res.body, SECRET, 'the JSON')
  })

  const deposit = (label: string, picture: FormPart) =>
    multipartBody([{ name: '_action', value: 'deposit' }, { name: 'label', value: label }, { name: 'pin', value: SECRET_PIN }, picture])
  const png: FormPart = { name: 'picture', filename: 'a.png', type: 'image/png', content: fileOf('png', 2000) }
  const notPng: FormPart = { name: 'picture', filename: 'a.png', type: 'image/png', content: fileOf('pdf', 2000) }

  t.test('a multipart form refused by its action: the label comes back, the PIN does not', async (t) => {
    const html = await send(origin, '/strongbox', deposit('refuse', png))
    t.equal(html.status, 422)
    t.same(bootstrapOf(html.body).action.values, { label: 'refuse' })
    t.match(html.body, /name="label"[^>]*value="refuse"/)
    t.notMatch(/<input[^>]*name="pin"[^>]*>/.exec(html.body)?.[0], /value=/, 'the PIN input has no value')
    assertAbsent(t, html.body, SECRET_PIN, 'the page')
    const json = await send(origin, '/strongbox', deposit('refuse', png), { headers: JSON_ACCEPT })
    t.equal(json.status, 422)
    t.same(json.json().values, { label: 'refuse' })
    assertAbsent(t, json.body, SECRET_PIN, 'the JSON')
  })

  t.test('a multipart form whose file is refused: the same', async (t) => {
    const html = await send(origin, '/strongbox', deposit('kept', notPng))
    t.equal(html.status, 422, 'without JavaScript, the page again with the error by the file')
    t.same(bootstrapOf(html.body).action.values, { label: 'kept' })
    t.ok(bootstrapOf(html.body).action.fieldErrors.picture)
    assertAbsent(t, html.body, SECRET_PIN, 'the page')
    const json = await send(origin, '/strongbox', deposit('kept', notPng), { headers: JSON_ACCEPT })
    t.equal(json.status, 415, 'with JavaScript, a refusal that carries no values at all')
    assertAbsent(t, json.body, SECRET_PIN, 'the JSON')
  })

  t.test("a layout's action: its secret field stays out too", async (t) => {
    const body = new URLSearchParams({ _action: 'unlock', code: SECRET, hint: 'the usual' }).toString()
    const json = await post('/shelf/one', body, JSON_ACCEPT)
    t.equal(json.statusCode, 422)
    t.same(json.json(), { ok: false, action: 'unlock', fieldErrors: { code: 'Wrong code.' }, values: { hint: 'the usual' } })
    const html = await post('/shelf/one', body)
    t.equal(html.statusCode, 422)
    t.same(bootstrapOf(html.body).action.values, { hint: 'the usual' })
    assertAbsent(t, html.body, SECRET, 'the page')
  })

  t.test('an action that throws: 500, and neither answer nor log line has the secret', async (t) => {
    const body = new URLSearchParams({ _action: 'explode', email: STRONGBOX_EMAIL, password: SECRET }).toString()
    const res = await post('/strongbox', body)
    t.equal(res.statusCode, 500)
    t.ok(logs.some((line) => line.msg === 'action failed'))
    assertAbsent(t, res.body, SECRET, 'the page')
  })

  t.test('no log line of all these has a secret', async (t) => {
    const all = logs.map((line) => JSON.stringify(line)).join('\n')
    assertAbsent(t, all, SECRET, 'the log')
    assertAbsent(t, all, SECRET_PIN, 'the log')
  })
})

t.test('the server refuses at start a secret field the types would have refused', async (t) => {
  const check = (routes: RouteTable, layouts?: LayoutTable) => () => checkLayoutRules(createRouter(routes, layouts))
  const signIn = (secrets: object) => ({ pattern: '/login', mode: 'dynamic', actions: { signIn: ['email', 'password'] }, secrets }) as const
  t.throws(check({ login: signIn({ signIn: ['pasword'] }) }), /Route "login": secret field "pasword" is not one of action "signIn"'s fields/)
  t.throws(check({ login: signIn({ signOut: ['password'] }) }), /Route "login" declares secret fields for "signOut", which is not one of its actions/)
  const root = { id: 'root', mode: 'static', actions: { unlock: ['code'] }, secrets: { unlock: ['cod'] } } as const
  t.throws(check({}, { root }), /Layout "root": secret field "cod" is not one of action "unlock"'s fields/)
  t.doesNotThrow(check({ login: route<null>()(signIn({ signIn: ['password'] }) as never) }, { root: layout()({ id: 'root', mode: 'static' }) }))
})
