/**
 * Actions that take files, over a real socket: limits (per file, in total), types
 * (declared and by content), what the action is handed, that no temporary file
 * outlives its action whatever happens, and that bad multipart input is refused
 * without crashing or hanging anything.
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import { listenTestApp } from '../helpers/app.js'
import { fileOf, multipartBody, send, type FormPart } from '../helpers/multipart.js'
import { securityHeaderNames } from '../helpers/security-headers.js'
import { waitUntil } from '../helpers/wait.js'
import { receivedUploads } from '../fixtures/app/server.js'
import { SECRET_MESSAGE, UPLOAD_BOX_FILE_BYTES } from '../fixtures/app/routes.js'
import { MiB } from '../../shared/framework/uploads.js'

const JSON_ACCEPT = { accept: 'application/json' }
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

/** A folder of its own for the test's uploads, removed with it. */
function uploadDir(t: Test): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'uploads-test-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

const isEmpty = (dir: string) => readdirSync(dir).length === 0

/** The fixture app listening, with its own upload folder. */
async function uploadApp(t: Test, uploadMaxBytes?: number) {
  const dir = uploadDir(t)
  const app = await listenTestApp(t, 'fixture', { config: { uploadDir: dir, ...(uploadMaxBytes ? { uploadMaxBytes } : {}) } })
  return { ...app, dir }
}

const keep = (...parts: FormPart[]) => multipartBody([{ name: '_action', value: 'keep' }, ...parts])
const picture = (content: Buffer, type = 'image/png', filename = 'photo.png'): FormPart => ({ name: 'picture', filename, type, content })

t.test('a form with files: the action gets them stored, checked and described', async (t) => {
  const { origin, dir } = await uploadApp(t)
  const png = fileOf('png', 300 * 1024)
  const pdf = fileOf('pdf', 12_345)
  const res = await send(
    origin,
    '/upload-box',
    keep({ name: 'note', value: 'größer & more' }, picture(png), { name: 'document', filename: 'report.pdf', type: 'application/pdf', content: pdf }),
  )
  t.equal(res.status, 303)
  t.equal(res.headers.location, '/upload-box')
  const got = receivedUploads.at(-1)!
  t.equal(got.note, 'größer & more', 'text fields as an urlencoded form gives them')
  t.match(got.picture, { name: 'photo.png', type: 'image/png', size: png.length, sha256: sha256(png) })
  t.equal(got.picture!.sha256OnDisk, sha256(png), 'the file at its path is what was sent')
  t.match(got.document, { name: 'report.pdf', type: 'application/pdf', size: pdf.length, sha256: sha256(pdf) })
  t.equal(path.dirname(got.picture!.path), dir, 'stored in UPLOAD_DIR')
  t.match(path.basename(got.picture!.path), /^upload-[0-9a-f-]{36}$/, 'under a random name')
  t.ok(isEmpty(dir), 'and removed once the action is over')
})

t.test('an empty file input (no file name, no bytes) is no file; JSON clients get JSON', async (t) => {
  const { origin, dir } = await uploadApp(t)
  const res = await send(origin, '/upload-box', keep({ name: 'note', value: 'none' }, picture(Buffer.alloc(0), 'application/octet-stream', '')), {
    headers: JSON_ACCEPT,
  })
  t.equal(res.status, 200)
  t.same(res.json(), { ok: true, redirect: '/upload-box' })
  t.match(receivedUploads.at(-1), { note: 'none', picture: null, document: null })
  t.ok(isEmpty(dir))
  // What a script's `new File([bytes], '')` sends: bytes, but no name. Told, not dropped.
  const before = receivedUploads.length
  const nameless = await send(origin, '/upload-box', keep({ name: 'note', value: 'nameless' }, picture(fileOf('png', 108), 'image/png', '')), {
    headers: JSON_ACCEPT,
  })
  t.equal(nameless.status, 400, 'a file with bytes and no name')
  t.same(nameless.json().error.code, 'APP_ERR_BAD_MULTIPART')
  t.equal(nameless.json().error.message, 'The file for "picture" has no file name.')
  t.equal(receivedUploads.length, before, 'the action never ran')
  t.ok(isEmpty(dir))
})

t.test('file names are only names: directories dropped, non-ASCII kept, never a path', async (t) => {
  const { origin, dir } = await uploadApp(t)
  const cases: Array<[sent: string, shown: string]> = [
    ['../../etc/passwd.png', 'passwd.png'],
    ['C:\\Users\\eve\\..\\x.png', 'x.png'],
    ['фото 照片.png', 'фото 照片.png'],
  ]
  for (const [sent, shown] of cases) {
    const res = await send(origin, '/upload-box', keep(picture(fileOf('png', 100), 'image/png', sent)))
    t.equal(res.status, 303, sent)
    t.equal(receivedUploads.at(-1)!.picture!.name, shown, sent)
    t.equal(path.dirname(receivedUploads.at(-1)!.picture!.path), dir, `${sent}: stored in UPLOAD_DIR all the same`)
  }
  t.ok(isEmpty(dir))
})

t.test('temporary files are removed whatever the action does', async (t) => {
  const { origin, dir, logs } = await uploadApp(t)

  t.test('it throws: 500 with a digest, and the file is gone', async (t) => {
    const res = await send(origin, '/upload-box', multipartBody([{ name: '_action', value: 'explode' }, picture(fileOf('png', 50_000))]), {
      headers: JSON_ACCEPT,
    })
    t.equal(res.status, 500)
    t.notMatch(res.body, SECRET_MESSAGE)
    t.ok(logs.some((line) => line.msg === 'action failed' && line.err?.message === SECRET_MESSAGE))
    t.ok(isEmpty(dir))
  })

  t.test('it refuses the form: 422, and the file is gone', async (t) => {
    const res = await send(origin, '/upload-box', keep({ name: 'note', value: 'refuse' }, picture(fileOf('png', 50_000))), { headers: JSON_ACCEPT })
    t.equal(res.status, 422)
    t.same(res.json().fieldErrors, { note: 'Refused on purpose.' })
    t.same(res.json().values, { note: 'refuse' }, 'the values are the text fields')
    t.ok(isEmpty(dir))
  })

  t.test('the client goes away half-way through a file: nothing is left behind, and the server goes on', async (t) => {
    const body = keep(picture(fileOf('png', 800 * 1024)))
    const { default: http } = await import('node:http')
    const request = http.request(new URL('/upload-box', origin), {
      method: 'POST',
      headers: { origin, 'content-type': `multipart/form-data; boundary=${body.toString('latin1', 2, body.indexOf('\r\n'))}` },
    })
    request.on('error', () => {})
    request.write(body.subarray(0, 400 * 1024))
    await waitUntil(() => readdirSync(dir).length === 1, 'the file is being stored')
    request.destroy()
    await waitUntil(() => isEmpty(dir), 'the partial file is removed')
    const after = await send(origin, '/upload-box', keep(picture(fileOf('png', 100))))
    t.equal(after.status, 303)
  })
})

t.test('sizes: one file over its field limit, a form over the total: 413 naming the limit, the body not read further', async (t) => {
  const total = 1.5 * MiB
  const { app, origin, dir } = await uploadApp(t, total)
  const securityHeaders = await securityHeaderNames(app)

  t.test('a file one byte over its field limit', async (t) => {
    const json = await send(origin, '/upload-box', keep(picture(fileOf('png', UPLOAD_BOX_FILE_BYTES + 1))), { headers: JSON_ACCEPT })
    t.equal(json.status, 413)
    t.equal(json.json().error.code, 'APP_ERR_BODY_TOO_LARGE')
    t.equal(json.json().error.message, 'The file for "picture" may be at most 1 MiB (1048576 bytes).')
    const html = await send(origin, '/upload-box', keep(picture(fileOf('png', UPLOAD_BOX_FILE_BYTES + 1))))
    t.equal(html.status, 413)
    t.match(html.headers['content-type'], 'text/html')
    t.match(html.body, 'may be at most 1 MiB')
    for (const name of securityHeaders) t.ok(html.headers[name], `the refusal carries ${name}`)
    t.equal(html.headers['cache-control'], 'private, no-store')
    t.equal(html.headers.connection, 'close', 'the connection closes instead of reading the rest')
    const exactly = await send(origin, '/upload-box', keep(picture(fileOf('png', UPLOAD_BOX_FILE_BYTES))))
    t.equal(exactly.status, 303, 'exactly at the limit is fine')
    t.ok(isEmpty(dir))
  })

  t.test('files each within their limit, together over the total', async (t) => {
    const body = keep(picture(fileOf('png', 0.9 * MiB)), {
      name: 'document',
      filename: 'a.pdf',
      type: 'application/pdf',
      content: fileOf('pdf', 0.9 * MiB),
    })
    const res = await send(origin, '/upload-box', body, { headers: JSON_ACCEPT })
    t.equal(res.status, 413)
    t.equal(res.json().error.message, 'A form with files may be at most 1.5 MiB (1572864 bytes) in all.')
    t.ok(isEmpty(dir), 'the first file, already stored, is removed')
  })

  t.test('a declared length over the total is refused before a byte of the body is read', async (t) => {
    const res = await send(origin, '/upload-box', keep(picture(fileOf('png', 100))), {
      headers: { ...JSON_ACCEPT, 'content-length': String(100 * MiB) },
      stopAfter: 0,
    })
    t.equal(res.status, 413)
    t.equal(res.sentBeforeAnswer, 0)
  })

  t.test('a client that stalls after passing the limit is answered at once, not waited for', async (t) => {
    const body = keep(picture(fileOf('png', 3 * MiB)))
    const res = await send(origin, '/upload-box', body, { headers: JSON_ACCEPT, stopAfter: 1.2 * MiB })
    t.equal(res.status, 413)
    t.ok(isEmpty(dir))
  })
})

t.test('types: declared and by content; JSON clients get 415, browsers the page again with the error by the field', async (t) => {
  const { origin, dir } = await uploadApp(t)
  const cases: Array<[label: string, part: FormPart]> = [
    ['a type the field does not take', picture(fileOf('text', 5000), 'text/plain', 'notes.txt')],
    ['bytes that are not what was declared', picture(fileOf('text', 5000), 'image/png', 'fake.png')],
    ['a PDF declared as a PNG', picture(fileOf('pdf', 5000), 'image/png', 'doc.png')],
    ['a file shorter than any signature', picture(Buffer.from([0x89, 0x50]), 'image/png', 'tiny.png')],
  ]
  for (const [label, part] of cases) {
    const json = await send(origin, '/upload-box', keep({ name: 'note', value: 'kept' }, part), { headers: JSON_ACCEPT })
    t.equal(json.status, 415, label)
    t.equal(json.json().error.code, 'APP_ERR_UNSUPPORTED_MEDIA_TYPE', label)
    t.equal(
      json.json().error.message,
      'The file for "picture" must be a PNG or JPEG file (image/png, image/jpeg).',
      `${label}: names the allowed types`,
    )
    const html = await send(
      origin,
      '/upload-box',
      keep({ name: 'note', value: 'kept' }, part, { name: 'document', filename: 'ok.pdf', type: 'application/pdf', content: fileOf('pdf', 2000) }),
    )
    t.equal(html.status, 422, `${label}: without JavaScript`)
    t.match(html.body, /aria-invalid="true"[^>]*>[^]*?Please choose a PNG or JPEG file\./, `${label}: the error is by the field`)
    t.match(html.body, /name="note"[^>]*value="kept"/, `${label}: the text is kept`)
    t.ok(isEmpty(dir), `${label}: nothing kept, the valid file after it neither`)
  }
  const jpeg = await send(origin, '/upload-box', keep(picture(fileOf('jpeg', 5000), 'image/jpeg', 'photo.jpg')))
  t.equal(jpeg.status, 303, 'a real JPEG where PNG or JPEG is allowed')
})

t.test('an empty file (a name, no bytes) is refused as empty, not as a wrong type', async (t) => {
  const { origin, dir } = await uploadApp(t)
  const empty = picture(Buffer.alloc(0), 'image/png', 'empty.png')
  const json = await send(origin, '/upload-box', keep({ name: 'note', value: 'kept' }, empty), { headers: JSON_ACCEPT })
  t.equal(json.status, 400)
  t.equal(json.json().error.code, 'APP_ERR_EMPTY_FILE')
  t.equal(json.json().error.message, 'The file for "picture" is empty.')
  const html = await send(origin, '/upload-box', keep({ name: 'note', value: 'kept' }, empty))
  t.equal(html.status, 422, 'without JavaScript: the page again')
  t.match(html.body, /aria-invalid="true"[^>]*>[^]*?This file is empty: please choose another\./, 'the error is by the field')
  t.match(html.body, /name="note"[^>]*value="kept"/, 'the text is kept')
  t.ok(isEmpty(dir), 'nothing kept')
  const noFile = await send(
    origin,
    '/upload-box',
    keep({ name: 'note', value: 'kept' }, { name: 'picture', filename: '', type: 'application/octet-stream', content: Buffer.alloc(0) }),
  )
  t.equal(noFile.status, 303, 'an empty file input (no name, no bytes) is still no file')
})

t.test('forms that break the rules are refused, never crash or hang', async (t) => {
  const { origin, dir, app } = await uploadApp(t)
  const cases: Array<[label: string, body: Buffer, status: number, code: string, headers?: Record<string, string>]> = [
    [
      'a file for a field the action does not declare',
      keep({ name: 'note', filename: 'x.png', type: 'image/png', content: fileOf('png', 100) }),
      400,
      'APP_ERR_UNDECLARED_FILE',
    ],
    ['two files for one field', keep(picture(fileOf('png', 100)), picture(fileOf('png', 100))), 400, 'APP_ERR_UNDECLARED_FILE'],
    [
      'a file before the form names its action',
      multipartBody([picture(fileOf('png', 100)), { name: '_action', value: 'keep' }]),
      400,
      'APP_ERR_NO_ACTION',
    ],
    ['no action at all', multipartBody([{ name: 'note', value: 'x' }]), 400, 'APP_ERR_NO_ACTION'],
    ['an unknown action', multipartBody([{ name: '_action', value: 'nope' }, picture(fileOf('png', 100))]), 404, 'APP_ERR_UNKNOWN_ACTION'],
    ['multipart for an action that takes no files', multipartBody([{ name: '_action', value: 'plain' }]), 415, 'APP_ERR_UNSUPPORTED_MEDIA_TYPE'],
    ['a body cut short in a file', keep(picture(fileOf('png', 5000))).subarray(0, 3000), 400, 'APP_ERR_BAD_MULTIPART'],
    ['a body cut short in its headers', Buffer.from('--' + 'x'.repeat(10)), 400, 'APP_ERR_BAD_MULTIPART'],
    ['no boundary', keep(picture(fileOf('png', 100))), 400, 'APP_ERR_BAD_MULTIPART', { 'content-type': 'multipart/form-data' }],
    ['too many fields', keep(...Array.from({ length: 101 }, (_, i) => ({ name: `f${i}`, value: 'x' }))), 413, 'APP_ERR_TOO_MANY_PARTS'],
    [
      'too many parts',
      keep(...Array.from({ length: 130 }, () => ({ name: 'document', filename: '', type: 'application/octet-stream', content: Buffer.alloc(0) }))),
      413,
      'APP_ERR_TOO_MANY_PARTS',
    ],
    ['a text field over the text limit', keep({ name: 'note', value: 'n'.repeat(1024 * 1024 + 1) }), 413, 'APP_ERR_BODY_TOO_LARGE'],
    ['a field named like a prototype property', keep({ name: '__proto__', value: 'x' }), 400, 'APP_ERR_BAD_MULTIPART'],
  ]
  for (const [label, body, status, code, headers] of cases) {
    const res = await send(origin, '/upload-box', body, { headers: { ...JSON_ACCEPT, ...headers } })
    t.equal(res.status, status, label)
    t.equal(res.json().error.code, code, label)
    t.ok(isEmpty(dir), `${label}: nothing left behind`)
  }
  t.equal((await app.inject('/upload-box')).statusCode, 200, 'the server is fine')
})

t.test('what is checked before the body is read: origin, page, actions, whether the page takes files', async (t) => {
  const { origin } = await uploadApp(t)
  const body = keep(picture(fileOf('png', 2 * MiB)))
  const cases: Array<[label: string, path: string, status: number, headers?: Record<string, string>]> = [
    ['a post from another origin', '/upload-box', 403, { origin: 'https://evil.example' }],
    ['no page there', '/nowhere', 404],
    ['a page without actions', '/target', 405],
    ['a page whose actions take no files', '/guestbook', 415],
  ]
  for (const [label, path, status, headers] of cases) {
    // The body never comes: the answer must not wait for it.
    const res = await send(origin, path, body, { headers: { ...JSON_ACCEPT, ...headers }, stopAfter: 64 * 1024 })
    t.equal(res.status, status, label)
    t.equal(res.headers.connection, 'close', `${label}: the connection is not kept for the rest of the body`)
  }
})

t.test('/contact: the demo takes an optional attachment and logs what identifies it', async (t) => {
  const dir = uploadDir(t)
  const { origin, logs } = await listenTestApp(t, 'production', { config: { uploadDir: dir } })
  const form = (...parts: FormPart[]) =>
    multipartBody([
      { name: '_action', value: 'send' },
      { name: 'name', value: 'Ann Example' },
      { name: 'email', value: 'ann@example.com' },
      { name: 'message', value: 'See attached' },
      ...parts,
    ])
  const pdf = fileOf('pdf', 4 * MiB)
  const sent = await send(origin, '/contact', form({ name: 'attachment', filename: 'plan.pdf', type: 'application/pdf', content: pdf }))
  t.equal(sent.status, 303)
  const line = logs.filter((l) => l.event === 'contact.message').at(-1)
  t.same(line?.contact, {
    name: 'Ann Example',
    email: 'ann@example.com',
    message: 'See attached',
    attachment: { name: 'plan.pdf', size: pdf.length, sha256: sha256(pdf) },
  })
  t.ok(isEmpty(dir))

  const none = await send(origin, '/contact', form({ name: 'attachment', filename: '', type: 'application/octet-stream', content: Buffer.alloc(0) }))
  t.equal(none.status, 303, 'no attachment is fine')
  t.equal((logs.filter((l) => l.event === 'contact.message').at(-1)?.contact as any)?.attachment, null)

  const big = await send(
    origin,
    '/contact',
    form({ name: 'attachment', filename: 'big.png', type: 'image/png', content: fileOf('png', 5 * MiB + 1) }),
    { headers: JSON_ACCEPT },
  )
  t.equal(big.status, 413)
  t.equal(big.json().error.message, 'The file for "attachment" may be at most 5 MiB (5242880 bytes).')
  const gif = await send(origin, '/contact', form({ name: 'attachment', filename: 'a.gif', type: 'image/gif', content: Buffer.from('GIF89a....') }), {
    headers: JSON_ACCEPT,
  })
  t.equal(gif.status, 415)
  t.equal(gif.json().error.message, 'The file for "attachment" must be a PNG, JPEG or PDF file (image/png, image/jpeg, application/pdf).')
  t.ok(isEmpty(dir))
})

t.test("an UPLOAD_DIR that went away is the server's failure (500 with a digest), not the client's", async (t) => {
  const { origin, dir, logs } = await uploadApp(t)
  rmSync(dir, { recursive: true })
  const res = await send(origin, '/upload-box', keep(picture(fileOf('png', 1000))), { headers: JSON_ACCEPT })
  t.equal(res.status, 500)
  t.equal(res.json().error.code, 'APP_ERR_INTERNAL')
  t.ok(
    logs.some((line) => line.digest === res.json().error.digest && /ENOENT/.test(line.err?.message ?? '')),
    'the cause is in the log',
  )
})
