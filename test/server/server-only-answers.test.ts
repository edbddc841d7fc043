/**
 * Server-only values in every answer that goes to a browser (the fixture's ledger,
 * test/fixtures/app/ledger.ts): a loader, a deferred part, an action or an /api route
 * that hands over a marked record or string is a server error naming the route and
 * where the value is; the browser gets a digest and nothing of the value; the operator's
 * log line has the whole message. Before, each of these answers carried the record whole.
 */
import t from 'tap'
import { createTestApp, type LogLine } from '../helpers/app.js'
import { bootstrapOf } from '../helpers/page-html.js'
import { FILE_MESSAGE, LEDGER_FILE, LEDGER_OWNER_EMAIL, ledgerApi, NOTE_MESSAGE, OWNER_MESSAGE } from '../fixtures/app/ledger.js'

type Test = Parameters<typeof createTestApp>[0]

const FORM = { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost:80' }

/** What must never be in an answer to the browser: the values, where they were, or that they were server-only. */
const NEVER_SENT = [LEDGER_OWNER_EMAIL, LEDGER_FILE, 'password', 'salt', 'data.note', 'server-only', OWNER_MESSAGE, NOTE_MESSAGE, FILE_MESSAGE]

function ledgerApp(t: Test) {
  return createTestApp(t, 'fixture', { apiRoutes: [ledgerApi] })
}

function assertNothingSent(t: Test & { notMatch(found: string, wanted: string, message: string): void }, body: string) {
  for (const secret of NEVER_SENT) t.notMatch(body, secret, `the answer does not say ${JSON.stringify(secret)}`)
}

/** The one error line of a refusal, its message naming the answer and the path. */
function refusalLine(logs: readonly LogLine[]): LogLine | undefined {
  const lines = logs.filter((line) => line.level >= 50 && line.err?.message.includes('would send a server-only value to the browser'))
  return lines.length === 1 ? lines[0] : undefined
}

t.test('a loader returning a marked record: the document is a 500 naming the route and the path', async (t) => {
  const { app, logs } = await ledgerApp(t)
  const response = await app.inject({ url: '/ledger?leak=record' })
  t.equal(response.statusCode, 500)
  const digest = /Digest: ([0-9a-z]+)/.exec(response.body)?.[1]
  t.ok(digest, 'the page gives the digest')
  assertNothingSent(t, response.body)
  const line = refusalLine(logs)
  t.equal(line?.err?.message, `The page data of route "ledger" would send a server-only value to the browser, at data.note: ${NOTE_MESSAGE}`)
  t.equal(line?.digest, digest, 'the log line has the digest the page shows')
  t.equal(line?.routeId, 'ledger')
})

t.test('a copy of the record ({ ...note }) is refused by the records in it: its owner', async (t) => {
  const { app, logs } = await ledgerApp(t)
  const response = await app.inject({ url: '/ledger?leak=copy' })
  t.equal(response.statusCode, 500)
  assertNothingSent(t, response.body)
  t.match(refusalLine(logs)?.err?.message, `at data.note.owner: ${OWNER_MESSAGE}`)
})

t.test("a copy of an account refuses the framework's password hash in it", async (t) => {
  const { app, logs } = await ledgerApp(t)
  const response = await app.inject({ url: '/ledger?leak=hash' })
  t.equal(response.statusCode, 500)
  assertNothingSent(t, response.body)
  t.match(refusalLine(logs)?.err?.message, /at data\.note\.owner\.password: a password hash stays on the server/)
})

t.test('page data: the same refusal, as an error payload with the digest only', async (t) => {
  const { app, logs } = await ledgerApp(t)
  const response = await app.inject({ url: '/_data/ledger?leak=record' })
  t.equal(response.statusCode, 500)
  const payload = response.json()
  t.match(payload, { kind: 'error', status: 500, digest: /^[0-9a-z]+$/ })
  t.notOk('devError' in payload, 'production sends no message')
  assertNothingSent(t, response.body)
  const line = refusalLine(logs)
  t.match(line?.err?.message, `The page data of route "ledger" would send a server-only value to the browser, at data.note: ${NOTE_MESSAGE}`)
  t.equal(line?.digest, payload.digest)
})

t.test('a marked string inside an array is found by its path', async (t) => {
  const { app, logs } = await ledgerApp(t)
  const response = await app.inject({ url: '/_data/ledger?leak=value' })
  t.equal(response.statusCode, 500)
  assertNothingSent(t, response.body)
  t.match(refusalLine(logs)?.err?.message, `at data.note.tags[1]: ${FILE_MESSAGE}`)
})

t.test('the session cookie, handed to a loader with the others, is refused in its data', async (t) => {
  const { app, logs } = await ledgerApp(t)
  const cookie = 'sealed-session-value-of-this-visitor'
  const response = await app.inject({ url: '/_data/ledger?leak=session', headers: { cookie: `session=${cookie}` } })
  t.equal(response.statusCode, 500)
  t.notMatch(response.body, cookie)
  t.match(refusalLine(logs)?.err?.message, 'at data.note.session: the session cookie stays')
  const other = await app.inject({ url: '/_data/ledger?leak=session', headers: { cookie: 'session=another-visitors-cookie' } })
  t.equal(other.statusCode, 500, "another request's cookie is marked for that request")
})

t.test('a deferred part holding a record fails as a part, in the document and in page data', async (t) => {
  const { app, logs } = await ledgerApp(t)
  const document = await app.inject({ url: '/ledger/later?leak=copy' })
  t.equal(document.statusCode, 200, 'the shell was sent before the part came')
  t.match(document.body, /"key":"later","error":\{"digest":"[0-9a-z]+"\}/, 'the part comes as its failure')
  assertNothingSent(t, document.body)

  const data = await app.inject({ url: '/_data/ledger/later?leak=copy' })
  t.equal(data.statusCode, 200)
  const [payload, part] = data.body
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
  t.match(payload, { kind: 'page', routeId: 'ledger-later', data: { text: 'Ledger', later: null } })
  t.match(part, { key: 'later', error: { digest: /^[0-9a-z]+$/ } })
  assertNothingSent(t, data.body)

  const lines = logs.filter((line) => line.msg === 'deferred data failed')
  t.equal(lines.length, 2, 'one error line each')
  for (const line of lines) {
    t.equal(
      line.err?.message,
      `The deferred part "later" of route "ledger-later" would send a server-only value to the browser, at data.later.owner: ${OWNER_MESSAGE}`,
    )
  }
  t.equal(lines[1]?.digest, part.error.digest, "the page data's line has the digest of its log line")
})

t.test("an action's answer holding a marked string is a 500, with and without JavaScript", async (t) => {
  const { app, logs } = await ledgerApp(t)
  const script = await app.inject({
    method: 'POST',
    url: '/ledger',
    headers: { ...FORM, accept: 'application/json' },
    payload: '_action=reveal&what=file',
  })
  t.equal(script.statusCode, 500)
  t.match(script.json(), { error: { code: 'INTERNAL', digest: /^[0-9a-z]+$/ } })
  assertNothingSent(t, script.body)
  t.match(
    refusalLine(logs)?.err?.message,
    `The answer of action "reveal" of route "ledger" would send a server-only value to the browser, at formError: ${FILE_MESSAGE}`,
  )

  logs.length = 0
  const form = await app.inject({ method: 'POST', url: '/ledger', headers: FORM, payload: '_action=reveal&what=file' })
  t.equal(form.statusCode, 500, 'the page again, with the refusal in it, is refused')
  assertNothingSent(t, form.body)
  t.match(refusalLine(logs)?.err?.message, `at action.formError: ${FILE_MESSAGE}`)

  const plain = await app.inject({
    method: 'POST',
    url: '/ledger',
    headers: { ...FORM, accept: 'application/json' },
    payload: '_action=reveal&what=other',
  })
  t.equal(plain.statusCode, 422, 'an answer without one is as before')
  t.same(plain.json(), { ok: false, action: 'reveal', fieldErrors: { what: 'Nothing to reveal.' }, values: { what: 'other' } })
})

t.test('an /api answer holding a record is a 500 JSON error, its schema or not', async (t) => {
  const { app, logs } = await ledgerApp(t)
  for (const url of ['/api/ledger?leak=record', '/api/ledger/titled?leak=copy']) {
    logs.length = 0
    const response = await app.inject({ url })
    t.equal(response.statusCode, 500, url)
    t.match(response.json(), { error: { code: 'INTERNAL', digest: /^[0-9a-z]+$/ } })
    assertNothingSent(t, response.body)
    t.match(
      refusalLine(logs)?.err?.message,
      /^The \/api answer of GET \/api\/ledger(\/titled)? would send a server-only value to the browser, at note/,
    )
  }
})

t.test('data without marked values is answered as before, everywhere', async (t) => {
  const { app } = await ledgerApp(t)
  const shown = { id: 7, title: 'Quarterly figures', owner: LEDGER_OWNER_EMAIL }
  const document = await app.inject({ url: '/ledger' })
  t.equal(document.statusCode, 200)
  t.same(bootstrapOf(document.body).data, { note: shown })
  const data = await app.inject({ url: '/_data/ledger' })
  t.equal(data.statusCode, 200)
  t.equal(data.headers['content-type'], 'application/json; charset=utf-8')
  t.same(data.json().data, { note: shown })
  const later = await app.inject({ url: '/_data/ledger/later' })
  t.same(JSON.parse(later.body.trim().split('\n')[1]!), { key: 'later', value: shown })
  const api = await app.inject({ url: '/api/ledger' })
  t.same(api.json(), { note: shown })
  const titled = await app.inject({ url: '/api/ledger/titled' })
  t.same(titled.json(), { note: { title: 'Quarterly figures' } }, 'the schema still keeps only what it declares')
})
