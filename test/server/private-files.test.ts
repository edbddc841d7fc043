/**
 * A private file: the notes-image case of docs/guide/uploads.md. An image kept from an
 * upload, recorded with its owner, answered by an /api route behind the product's
 * signed-in guard over a real connection: to its owner with its headers, as a 304, in
 * ranges and to HEAD; to anyone else, or for an id of another form, the same 404 as for
 * no file at all.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { parseAccounts } from '../../server/config.js'
import { signedIn } from '../../server/guards/signed-in.js'
import { guardValue, keepUpload, sendStoredFile, type StoredFile } from '../../server/framework/index.js'
import { createHash } from 'node:crypto'
import { listenTestApp } from '../helpers/app.js'
import { sessionCookie } from '../helpers/cookies.js'

const ORIGIN = 'http://localhost:80'
const PASSWORD = 'hunter2-but-longer'
const OWNER = 'owner@example.com'
const OTHER = 'other@example.com'
const BYTES = Buffer.from('\x89PNG\r\n\x1a\n' + 'pixels'.repeat(20), 'latin1')

async function setUp(t: Test) {
  const dir = mkdtempSync(path.join(tmpdir(), 'private-files-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const upload = path.join(dir, 'upload')
  writeFileSync(upload, BYTES)
  const sha256 = createHash('sha256').update(BYTES).digest('hex')
  const image: StoredFile = await keepUpload({ name: 'Ühersicht "plan" 1.png', type: 'image/png', size: BYTES.length, sha256, path: upload }, dir)
  const owners = new Map([[image.id, OWNER]])
  async function notesImages(api: FastifyInstance) {
    api.get<{ Params: { id: string } }>('/notes/images/:id', { config: { guard: signedIn } }, async (request, reply) => {
      const account = guardValue(request, signedIn)
      return sendStoredFile(request, reply, { dir, id: request.params.id, allow: (file) => owners.get(file.id) === account.email })
    })
  }
  const accounts = parseAccounts(`${OWNER}:${PASSWORD},${OTHER}:${PASSWORD}`, 'DEMO_ACCOUNT')
  const testApp = await listenTestApp(t, 'production', { apiRoutes: [notesImages], config: { product: { DEMO_ACCOUNT: accounts } } })
  const signIn = async (email: string) => {
    const answer = await testApp.app.inject({
      method: 'POST',
      url: '/login',
      payload: new URLSearchParams({ _action: 'signIn', email, password: PASSWORD, next: '/account' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
    })
    t.equal(answer.statusCode, 303, `${email} signed in`)
    return sessionCookie(answer)
  }
  const get = (id: string, cookie: string, headers: Record<string, string> = {}, method = 'GET') =>
    fetch(`${testApp.origin}/api/notes/images/${id}`, { method, headers: { cookie, ...headers } })
  return { image, signIn, get, dir }
}

t.test('the owner gets the image with its type, nosniff, its name, private caching and an ETag', async (t) => {
  const { image, signIn, get } = await setUp(t)
  const answer = await get(image.id, await signIn(OWNER))
  t.equal(answer.status, 200)
  t.same(Buffer.from(await answer.arrayBuffer()), BYTES)
  t.equal(answer.headers.get('content-type'), 'image/png')
  t.equal(answer.headers.get('x-content-type-options'), 'nosniff')
  t.equal(
    answer.headers.get('content-disposition'),
    `inline; filename="_hersicht _plan_ 1.png"; filename*=UTF-8''%C3%9Chersicht%20%22plan%22%201.png`,
  )
  t.equal(answer.headers.get('cache-control'), 'private, no-cache')
  t.match(answer.headers.get('etag'), /^"[0-9a-f]{32}"$/)
  t.equal(answer.headers.get('content-length'), String(BYTES.length))
  t.equal(answer.headers.get('accept-ranges'), 'bytes')
})

t.test('another account and a signed-out visitor are refused, without learning the file exists', async (t) => {
  const { image, signIn, get } = await setUp(t)
  const other = await signIn(OTHER)
  const notYours = await get(image.id, other)
  const noSuchFile = await get('0'.repeat(32), other)
  t.equal(notYours.status, 404)
  t.equal(noSuchFile.status, 404)
  const [notYoursBody, noSuchBody] = [await notYours.json(), await noSuchFile.json()]
  t.match(notYoursBody, { error: { code: 'APP_ERR_NOT_FOUND' } })
  t.same({ ...notYoursBody.error, requestId: '' }, { ...noSuchBody.error, requestId: '' }, 'the same answer as for no file')
  t.equal(notYours.headers.get('content-disposition'), null)
  t.equal(notYours.headers.get('etag'), null)
  const signedOut = await get(image.id, '')
  t.equal(signedOut.status, 401, 'signed out: sign in first, whatever the id')
  t.equal((await get('0'.repeat(32), '')).status, 401)
})

t.test('a copy the browser holds is confirmed with a 304', async (t) => {
  const { image, signIn, get } = await setUp(t)
  const cookie = await signIn(OWNER)
  const etag = (await get(image.id, cookie)).headers.get('etag')!
  const again = await get(image.id, cookie, { 'if-none-match': etag })
  t.equal(again.status, 304)
  t.equal(again.headers.get('etag'), etag)
  t.equal(again.headers.get('cache-control'), 'private, no-cache')
  t.equal(await again.text(), '')
  t.equal((await get(image.id, cookie, { 'if-none-match': '"another"' })).status, 200, 'another tag gets the file')
  t.equal((await get(image.id, await signIn(OTHER), { 'if-none-match': etag })).status, 404, 'and a tag opens nothing to another account')
})

t.test('HEAD gives the headers and length without the bytes', async (t) => {
  const { image, signIn, get } = await setUp(t)
  const head = await get(image.id, await signIn(OWNER), {}, 'HEAD')
  t.equal(head.status, 200)
  t.equal(head.headers.get('content-length'), String(BYTES.length))
  t.equal(head.headers.get('content-type'), 'image/png')
  t.equal(await head.text(), '')
})

t.test('one range is answered with 206; past the end with 416; malformed or several with the whole file', async (t) => {
  const { image, signIn, get } = await setUp(t)
  const cookie = await signIn(OWNER)
  const size = BYTES.length
  const cases: [string, number, string | null, Buffer | undefined][] = [
    ['bytes=0-7', 206, `bytes 0-7/${size}`, BYTES.subarray(0, 8)],
    ['bytes=8-', 206, `bytes 8-${size - 1}/${size}`, BYTES.subarray(8)],
    ['bytes=-6', 206, `bytes ${size - 6}-${size - 1}/${size}`, BYTES.subarray(size - 6)],
    [`bytes=10-${size + 100}`, 206, `bytes 10-${size - 1}/${size}`, BYTES.subarray(10)],
    [`bytes=${size}-`, 416, `bytes */${size}`, undefined],
    ['bytes=-0', 416, `bytes */${size}`, undefined],
    ['bytes=abc', 200, null, BYTES],
    ['bytes=5-2', 200, null, BYTES],
    ['items=0-1', 200, null, BYTES],
    ['bytes=0-1,4-5', 200, null, BYTES],
  ]
  for (const [range, status, contentRange, body] of cases) {
    const answer = await get(image.id, cookie, { range })
    t.equal(answer.status, status, range)
    t.equal(answer.headers.get('content-range'), contentRange, `${range}: Content-Range`)
    const bytes = Buffer.from(await answer.arrayBuffer())
    if (body) t.same(bytes, body, `${range}: the bytes`)
    else t.match(JSON.parse(bytes.toString()), { error: { code: 'APP_ERR_RANGE_NOT_SATISFIABLE' } })
  }
  const stale = await get(image.id, cookie, { range: 'bytes=0-7', 'if-range': '"older"' })
  t.equal(stale.status, 200, 'If-Range of another version: the whole file')
})

t.test('an id that is not a stored id names no file, however it tries to reach one', async (t) => {
  const { image, signIn, get, dir } = await setUp(t)
  const cookie = await signIn(OWNER)
  writeFileSync(path.join(dir, 'secret.json'), JSON.stringify({ ...image, id: 'secret' }))
  for (const id of ['secret', '..%2Fsecret', `${image.id}.json`, `..%2F..%2Fetc%2Fpasswd`, image.id.toUpperCase(), `${image.id}%00`]) {
    const answer = await get(id, cookie)
    t.equal(answer.status, 404, id)
  }
})
