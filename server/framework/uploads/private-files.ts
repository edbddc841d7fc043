/**
 * Uploads kept past their action and answered only to whom the product allows
 * (docs/guide/uploads.md, docs/decisions/049-private-files.md). A kept file is stored
 * under a random id beside a small record of its name, type, size and hash; the id is
 * the only thing a URL carries, checked against its exact form before any path is made,
 * so no id reaches another file.
 *
 * One response for "no such file" and "not yours": a 404 the same in status, headers and
 * body, so an id cannot be probed for. The ETag is the content's hash: a file never
 * changes under its id. `private, no-cache`: a browser may keep it but asks each time,
 * so access taken away is taken away at once, and the response is a cheap 304.
 */
import { randomBytes } from 'node:crypto'
import { constants, createReadStream } from 'node:fs'
import { copyFile, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { UploadedFile } from '../../../shared/framework/uploads.js'
import { AppError, errors } from '../error-registry.js'

/** What the product keeps in its own record (with the owner, or whatever decides access). */
export interface StoredFile {
  readonly id: string
  /** The name the file came with, shown to people only. */
  readonly name: string
  /** As checked at upload: the declared type the content was sniffed to be. */
  readonly type: string
  readonly size: number
  readonly sha256: string
}

const STORED_ID = /^[0-9a-f]{32}$/

/** Copies an action's upload (removed when the action is over) into `dir` under a new id. */
export async function keepUpload(file: UploadedFile, dir: string): Promise<StoredFile> {
  const id = randomBytes(16).toString('hex')
  // A copy, not a rename: UPLOAD_DIR and `dir` may be on different file systems.
  await copyFile(file.path, path.join(dir, id), constants.COPYFILE_EXCL)
  const stored: StoredFile = { id, name: file.name, type: file.type, size: file.size, sha256: file.sha256 }
  await writeFile(recordPath(dir, id), JSON.stringify(stored), { flag: 'wx', mode: 0o600 })
  return stored
}

function recordPath(dir: string, id: string): string {
  return path.join(dir, `${id}.json`)
}

/** The stored record, or undefined for an id of another form or no file. */
export async function readStoredFile(dir: string, id: string): Promise<StoredFile | undefined> {
  if (!STORED_ID.test(id)) return undefined
  try {
    return JSON.parse(await readFile(recordPath(dir, id), 'utf8')) as StoredFile
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

export interface SendStoredFileOptions {
  readonly dir: string
  readonly id: string
  /** The product's check (the record's owner against the guard's account): false answers as if there were no file. */
  readonly allow: (file: StoredFile) => boolean | Promise<boolean>
  /** `inline` (shown in the browser: images, PDFs) or `attachment` (saved). */
  readonly disposition?: 'inline' | 'attachment'
}

/** Answers GET and HEAD for a stored file: 200, 206 for one range, 304, 416, or the /api 404. */
export async function sendStoredFile(request: FastifyRequest, reply: FastifyReply, options: SendStoredFileOptions): Promise<FastifyReply> {
  const file = await readStoredFile(options.dir, options.id)
  if (!file || !(await options.allow(file))) throw new AppError(errors.API_NOT_FOUND())
  const etag = `"${file.sha256.slice(0, 32)}"`
  reply.header('cache-control', 'private, no-cache')
  reply.header('etag', etag)
  // Before Range, as RFC 9110 orders them: a copy still good needs no bytes at all.
  if (matchesAny(request.headers['if-none-match'], etag)) return reply.code(304).send()
  const ifRange = request.headers['if-range']
  const range = ifRange === undefined || ifRange === etag ? parseRange(request.headers.range, file.size) : undefined
  if (range === 'unsatisfiable') {
    reply.header('content-range', `bytes */${file.size}`)
    throw new AppError(errors.FILE_RANGE())
  }
  reply.header('content-type', file.type)
  reply.header('x-content-type-options', 'nosniff')
  reply.header('content-disposition', contentDisposition(options.disposition ?? 'inline', file.name))
  reply.header('accept-ranges', 'bytes')
  // Bytes as stored: a range counts them, and a compressed response would count others.
  reply.header('content-encoding', 'identity')
  const { start, end } = range ?? { start: 0, end: file.size - 1 }
  if (range) reply.code(206).header('content-range', `bytes ${start}-${end}/${file.size}`)
  reply.header('content-length', String(end - start + 1))
  if (request.method === 'HEAD') return reply.send()
  return reply.send(createReadStream(path.join(options.dir, file.id), { start, end }))
}

function matchesAny(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false
  return header.split(',').some((tag) => {
    const candidate = tag.trim().replace(/^W\//, '')
    return candidate === '*' || candidate === etag
  })
}

/**
 * One range of `bytes=`: a malformed header, another unit or several ranges get the
 * whole file (RFC 9110 lets a server ignore Range; several ranges would be a multipart
 * response nobody here needs, and a way to ask for the same bytes many times over).
 */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const match = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (!match || (match[1] === '' && match[2] === '')) return undefined
  const [first, last] = [match[1]!, match[2]!]
  if (first === '') {
    const suffix = Number(last)
    if (suffix === 0 || size === 0) return 'unsatisfiable'
    return { start: Math.max(size - suffix, 0), end: size - 1 }
  }
  const start = Number(first)
  if (last !== '' && Number(last) < start) return undefined
  if (start >= size) return 'unsatisfiable'
  return { start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) }
}

/** RFC 6266: a plain-ASCII `filename` for old clients, and the exact name as RFC 8187 (5987) `filename*`. */
export function contentDisposition(kind: 'inline' | 'attachment', name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, '_')
  const exact = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  return fallback === name ? `${kind}; filename="${name}"` : `${kind}; filename="${fallback}"; filename*=UTF-8''${exact}`
}
