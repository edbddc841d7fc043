/**
 * Reads a multipart form into what an action gets. `_action` must come before the first
 * file, as its action decides which files it may carry (`<Form>` renders it first, and
 * browsers send fields in document order). Anything over a limit stops the reading at once.
 */
import type { FastifyRequest } from 'fastify'
import type { Multipart, MultipartFile, MultipartValue } from '@fastify/multipart'
import { ACTION_FIELD } from '../../../shared/framework/actions.js'
import { describeBytes, type FileFieldsDecl, type UploadedFile } from '../../../shared/framework/uploads.js'
import { errors, type ClientError } from '../error-registry.js'
import { removeFiles, storeUpload } from './store-upload.js'
import { isUploadRefusal, UploadRefusal } from './upload-refusal.js'

/** What one multipart form may hold besides its bytes: generous for any real form, small enough to parse cheaply. */
export const MULTIPART_LIMITS = {
  fields: 100,
  parts: 120,
  fieldNameSize: 100,
  // A browser sends two or three.
  headerPairs: 20,
} as const

export interface ReceiveOptions {
  readonly dir: string
  readonly maxBytes: number
  /** All text fields together: what an urlencoded form may have. */
  readonly maxTextBytes: number
  /** Throws an UploadRefusal when there is no such action or it takes no files. */
  readonly fileFieldsOf: (action: string) => FileFieldsDecl
  readonly readPastWrongType: boolean
}

export interface ReceivedForm {
  readonly fields: URLSearchParams
  readonly files: ReadonlyMap<string, UploadedFile>
  /** With `readPastWrongType`: what to tell the user next to each refused file field. */
  readonly refusedFiles: Readonly<Record<string, string>>
}

const refuse = (error: ClientError) => new UploadRefusal(error)

const PARSER_ERRORS: Readonly<Record<string, ClientError>> = {
  FST_PARTS_LIMIT: errors.TOO_MANY_PARTS(MULTIPART_LIMITS.parts),
  FST_FIELDS_LIMIT: errors.TOO_MANY_FIELDS(MULTIPART_LIMITS.fields),
  FST_FILES_LIMIT: errors.TOO_MANY_FILES(MULTIPART_LIMITS.parts),
  FST_PROTO_VIOLATION: errors.MULTIPART_FIELD_NAME(),
  FST_INVALID_JSON_FIELD_ERROR: errors.MULTIPART_FIELD_NOT_TEXT(),
}

function parserRefusal(error: unknown): UploadRefusal {
  if (isUploadRefusal(error)) return error
  const code = (error as { code?: unknown } | null)?.code
  return new UploadRefusal((typeof code === 'string' ? PARSER_ERRORS[code] : undefined) ?? errors.MULTIPART_MALFORMED())
}

interface FormSoFar {
  readonly fields: URLSearchParams
  readonly files: Map<string, UploadedFile>
  readonly refusedFiles: Record<string, string>
  textBytes: number
  fileFields?: FileFieldsDecl
}

/** Past `maxBytes`, `signal` aborts (whatever is being read stops at once) and `stopped` rejects. */
function totalLimit(options: ReceiveOptions, totalTooLarge: UploadRefusal, stopReading: () => void) {
  let received = 0
  const overTotal = new AbortController()
  const stopped = new Promise<never>((_, reject) => overTotal.signal.addEventListener('abort', () => reject(overTotal.signal.reason), { once: true }))
  stopped.catch(() => {}) // observed through the races of the reading
  const countBytes = (chunk: Buffer) => {
    received += chunk.length
    if (received > options.maxBytes && !overTotal.signal.aborted) {
      // At once: until the error reaches the reading's catch, the body would flow on.
      stopReading()
      overTotal.abort(totalTooLarge)
    }
  }
  return { signal: overTotal.signal, stopped, countBytes }
}

/** Throws an UploadRefusal after removing every file it stored; the caller removes those of a form it gets back. */
export async function receiveMultipart(request: FastifyRequest, options: ReceiveOptions): Promise<ReceivedForm> {
  const totalTooLarge = refuse(errors.FORM_WITH_FILES_TOO_LARGE(describeBytes(options.maxBytes), options.maxBytes))
  // A declared length over the limit is refused before a byte is read.
  if (Number(request.headers['content-length'] ?? 0) > options.maxBytes) throw totalTooLarge

  const form: FormSoFar = { fields: new URLSearchParams(), files: new Map(), refusedFiles: {}, textBytes: 0 }
  // Unpiped alone, the request would go on flowing (the counter listens for data) into nowhere.
  const stopReading = () => {
    request.raw.off('data', total.countBytes)
    request.raw.unpipe()
    request.raw.pause()
  }
  const total = totalLimit(options, totalTooLarge, stopReading)
  const parts = request
    .parts({
      limits: { ...MULTIPART_LIMITS, fieldSize: options.maxTextBytes, fileSize: Infinity, files: MULTIPART_LIMITS.parts },
      // Our own limits decide; the parser never cuts a file short by itself.
      throwFileSizeLimit: false,
      // As HTML forms send them, not any part typed application/octet-stream.
      isPartAFile: (_field: string | undefined, _type: string | undefined, filename: string | undefined) => filename !== undefined,
    } as Parameters<FastifyRequest['parts']>[0])
    [Symbol.asyncIterator]()
  try {
    // The first step pipes the request into the parser; listening for data before would set it flowing into nowhere.
    let next = parts.next()
    request.raw.on('data', total.countBytes)
    for (;;) {
      const step: IteratorResult<Multipart> = await Promise.race([next, total.stopped]).catch((error: unknown) => {
        throw parserRefusal(error)
      })
      if (step.done) break
      const part = step.value
      if (part.type === 'field') addTextField(form, part, options)
      else await receiveFile(form, part, options, total)
      next = parts.next()
    }
    // A form without files still names an action that takes them: multipart is for those alone.
    if (!form.fileFields && form.fields.has(ACTION_FIELD)) options.fileFieldsOf(form.fields.get(ACTION_FIELD)!)
    return { fields: form.fields, files: form.files, refusedFiles: form.refusedFiles }
  } catch (error) {
    stopReading()
    await removeFiles([...form.files.values()].map((file) => file.path))
    // The server's own trouble (UPLOAD_DIR full or unwritable) is a 500, not the client's fault.
    throw isSystemError(error) ? error : parserRefusal(error)
  } finally {
    request.raw.off('data', total.countBytes)
  }
}

/** A text field, counted against the text limit, as an urlencoded body would give it. */
function addTextField(form: FormSoFar, part: MultipartValue, options: ReceiveOptions): void {
  if (typeof part.value !== 'string') throw refuse(errors.MULTIPART_FIELD_NOT_TEXT())
  form.textBytes += Buffer.byteLength(part.value) + Buffer.byteLength(part.fieldname)
  if (part.valueTruncated || form.textBytes > options.maxTextBytes) {
    throw refuse(errors.FORM_TEXT_TOO_LARGE(options.maxTextBytes))
  }
  form.fields.append(part.fieldname, part.value)
}

async function receiveFile(form: FormSoFar, part: MultipartFile, options: ReceiveOptions, total: ReturnType<typeof totalLimit>): Promise<void> {
  const fileFields = (form.fileFields ??= fileFieldsFor(form.fields, options))
  const field = part.fieldname
  if (!part.filename) {
    // An empty file input sends no name and no bytes; bytes without a name (`new File([bytes], '')`) are refused.
    const bytes = await Promise.race([drain(part.file), total.stopped])
    if (bytes > 0) throw refuse(errors.FILE_WITHOUT_NAME(JSON.stringify(field.slice(0, 100))))
    return
  }
  const rule = Object.hasOwn(fileFields, field) ? fileFields[field] : undefined
  if (!rule) throw refuse(errors.UNDECLARED_FILE(JSON.stringify(field.slice(0, 100))))
  if (form.files.has(field) || Object.hasOwn(form.refusedFiles, field)) {
    throw refuse(errors.FILE_TWICE(JSON.stringify(field)))
  }
  try {
    const stored = storeUpload({ field, filename: part.filename, declaredType: part.mimetype, stream: part.file }, rule, {
      dir: options.dir,
      signal: total.signal,
      readPastWrongType: options.readPastWrongType,
    })
    form.files.set(field, await stored)
  } catch (error) {
    if (!(options.readPastWrongType && isUploadRefusal(error) && error.fieldMessage !== undefined)) throw error
    form.refusedFiles[field] = error.fieldMessage
  }
}

function fileFieldsFor(fields: URLSearchParams, options: ReceiveOptions): FileFieldsDecl {
  const action = fields.get(ACTION_FIELD)
  if (action === null) {
    throw refuse(errors.ACTION_BEFORE_FILES(ACTION_FIELD))
  }
  return options.fileFieldsOf(action)
}

function isSystemError(error: unknown): boolean {
  return typeof (error as NodeJS.ErrnoException | null)?.syscall === 'string'
}

async function drain(stream: NodeJS.ReadableStream): Promise<number> {
  let bytes = 0
  for await (const chunk of stream) bytes += (chunk as Buffer).length
  return bytes
}
