/**
 * The server-only registry on its own: what `toBrowserJson` refuses and how it names
 * where, that it writes everything else exactly as JSON.stringify does, and that a
 * marked record is still itself to the rest of the server (its log lines, its store).
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import t from 'tap'
import { hashPasswordSync } from '../../server/framework/passwords.js'
import {
  isServerOnly,
  markServerOnly,
  markServerOnlyValue,
  refuseServerOnly,
  ServerOnlyError,
  toBrowserJson,
} from '../../server/framework/server-only.js'
import { waitUntil } from '../helpers/wait.js'

const ANSWER = 'The page data of route "test"'

t.test('unmarked data is written exactly as JSON.stringify writes it', async (t) => {
  const data = { n: 1, s: 'x', list: [1, 'two', null, { deep: true }], at: new Date(0), skipped: undefined, bytes: Buffer.from('hi') }
  t.equal(toBrowserJson(data, ANSWER), JSON.stringify(data))
  markServerOnlyValue('an-unrelated-marked-value', 'walks are on now')
  t.equal(toBrowserJson(data, ANSWER), JSON.stringify(data), 'also while a string is marked, so the answer is walked')
})

t.test('a marked record is refused, named by the answer and its path', async (t) => {
  const record = markServerOnly({ id: 1 }, 'a stored record')
  const error = t.throws(() => toBrowserJson({ data: { list: [{ ok: 1 }, { inner: record }] } }, ANSWER)) as ServerOnlyError
  t.type(error, ServerOnlyError)
  t.equal(error.message, `${ANSWER} would send a server-only value to the browser, at data.list[1].inner: a stored record`)
  t.equal(error.path, 'data.list[1].inner')
  t.throws(() => toBrowserJson(record, ANSWER), { name: 'ServerOnlyError', path: '(the whole answer)' }, 'the whole value')
  t.throws(
    () => toBrowserJson({ 'odd key': { é: record } }, ANSWER),
    { name: 'ServerOnlyError', path: '["odd key"]["é"]' },
    'keys that are no identifiers, quoted',
  )
  t.throws(() => toBrowserJson({ part: record }, ANSWER, 'data.later'), { name: 'ServerOnlyError', path: 'data.later.part' }, 'under a given root')
})

t.test('a marked string is refused wherever it is, a key of the same text is not', async (t) => {
  markServerOnlyValue('tok_4f9a0c1d2e', 'an API token')
  t.throws(() => toBrowserJson({ a: [['x', 'tok_4f9a0c1d2e']] }, ANSWER), { name: 'ServerOnlyError', path: 'a[0][1]', message: /: an API token$/ })
  t.equal(toBrowserJson({ tok_4f9a0c1d2e: 1 }, ANSWER), '{"tok_4f9a0c1d2e":1}')
  t.ok(isServerOnly('tok_4f9a0c1d2e'))
  t.throws(() => markServerOnlyValue('', 'nothing'), /Only a non-empty string/)
})

t.test('a marked record is itself everywhere else: logs, stores and its own toJSON', async (t) => {
  const hash = hashPasswordSync('secret')
  t.ok(isServerOnly(hash) && isServerOnly(hash.hash) && isServerOnly(hash.salt), 'the record and both buffers')
  t.match(JSON.parse(JSON.stringify({ hash })), { hash: { salt: { type: 'Buffer' }, hash: { type: 'Buffer' } } })
  t.same(Object.keys(hash), ['salt', 'hash'], 'no enumerable field added')
  class Money {
    constructor(readonly cents: number) {}
    toJSON() {
      return `${this.cents / 100} EUR`
    }
  }
  const money = markServerOnly(new Money(150), 'a balance')
  t.equal(JSON.stringify({ money }), '{"money":"1.5 EUR"}', 'its class still writes it')
  t.throws(() => toBrowserJson({ money }, ANSWER), { name: 'ServerOnlyError', path: 'money' })
})

t.test('what JSON cannot carry is thrown as JSON.stringify throws it', async (t) => {
  const cycle: Record<string, unknown> = {}
  cycle.self = cycle
  t.throws(() => toBrowserJson(cycle, ANSWER), TypeError)
  t.throws(() => toBrowserJson({ n: 1n }, ANSWER), TypeError)
})

t.test('a frozen record cannot be marked: it must be marked before it is frozen', async (t) => {
  t.throws(() => markServerOnly(Object.freeze({ id: 1 }), 'a stored record'), /mark it before freezing it \(a stored record\)/)
})

t.test('refuseServerOnly finds a record in a value serialized elsewhere, a field a schema would drop included', async (t) => {
  const record = markServerOnly({ secret: 1 }, 'kept')
  t.throws(
    () => refuseServerOnly({ shown: 'x', dropped: record }, 'The /api answer of GET /api/x'),
    { name: 'ServerOnlyError', path: 'dropped' },
    'the record the schema would drop',
  )
  t.doesNotThrow(() => refuseServerOnly({ shown: 'x' }, 'The /api answer of GET /api/x'))
})

t.test("a string marked for a lifetime is released once that lifetime's object is collected", async (t) => {
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as () => void
  const value = 'session-id-of-a-finished-request'
  let request: object | undefined = {}
  markServerOnlyValue(value, 'a session id', request)
  t.ok(isServerOnly(value))
  request = undefined
  await waitUntil(() => {
    gc()
    return !isServerOnly(value)
  }, 'the mark was released')
  t.equal(toBrowserJson([value], ANSWER), `["${value}"]`)
  void request
})
