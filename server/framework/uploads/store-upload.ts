/** One file part streamed to a temporary file, checked and hashed on the way, never held whole in memory. */
import { createHash, randomUUID } from 'node:crypto'
import { createWriteStream, unlinkSync } from 'node:fs'
import { readdir, stat, unlink } from 'node:fs/promises'
import path from 'node:path'
import { Transform, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { describeBytes, describeTypes, type FileRule, type UploadedFile, type UploadType } from '../../../shared/framework/uploads.js'
import { SNIFF_BYTES, sniffType } from './sniff-type.js'
import { errors } from '../error-registry.js'
import { UploadRefusal } from './upload-refusal.js'

export interface FilePart {
  readonly field: string
  readonly filename: string
  readonly declaredType: string
  readonly stream: Readable
}

export interface StoreOptions {
  readonly dir: string
  readonly signal: AbortSignal
  /** A file of the wrong type is read to its end unstored, then refused, so the rest of the form can be read. */
  readonly readPastWrongType: boolean
}

export function wrongType(part: FilePart, rule: FileRule): UploadRefusal {
  return new UploadRefusal(
    errors.FILE_WRONG_TYPE(part.field, describeTypes(rule.types), rule.types.join(', ')),
    part.field,
    `Please choose a ${describeTypes(rule.types)} file.`,
  )
}

export function emptyFile(field: string): UploadRefusal {
  return new UploadRefusal(errors.EMPTY_FILE(field), field, 'This file is empty: please choose another.')
}

export function fileTooLarge(field: string, maxBytes: number): UploadRefusal {
  return new UploadRefusal(errors.FILE_TOO_LARGE(field, describeBytes(maxBytes), maxBytes), field)
}

/** How a later process knows a file left behind. */
const TEMP_PREFIX = 'upload-'

/** UPLOAD_DIR may be the system's temporary folder, shared with other programs. */
const LEFT_FILE = new RegExp(`^${TEMP_PREFIX}[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

const liveFiles = new Set<string>()

/** Whether or not still there: an action may have moved one. */
export async function removeFiles(paths: readonly string[]): Promise<void> {
  await Promise.all(
    paths.map(async (file) => {
      await unlink(file).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? undefined : Promise.reject(error)))
      liveFiles.delete(file)
    }),
  )
}

/** For a process that exits with uploads in progress, whose requests will never reach their own removal. */
export function removeLiveFilesSync(): void {
  for (const file of liveFiles) {
    try {
      unlinkSync(file)
    } catch {
      // Gone already, or not ours to remove any more: nothing to do at exit.
    }
  }
  liveFiles.clear()
}

/**
 * Files an earlier process left (SIGKILL, a crash). A recent one may be another process's, being
 * written: a body arrives within the request timeout, and no action keeps a file past its answer.
 */
export async function removeStaleFiles(dir: string, olderThanMs: number, now = Date.now()): Promise<number> {
  let removed = 0
  for (const name of await readdir(dir)) {
    if (!LEFT_FILE.test(name)) continue
    const file = path.join(dir, name)
    const info = await stat(file).catch(() => undefined)
    if (!info?.isFile() || now - info.mtimeMs <= olderThanMs) continue
    await removeFiles([file])
    removed++
  }
  return removed
}

/** Only ever shown to people; the stored file's name is random. */
export function displayName(filename: string): string {
  const name = (filename.split(/[/\\]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim()
  return Array.from(name).slice(0, 255).join('') || 'file'
}

/** Throws an UploadRefusal (413, 415, 400 for an empty file) after removing what it wrote. */
export async function storeUpload(part: FilePart, rule: FileRule, options: StoreOptions): Promise<UploadedFile> {
  const declared = rule.types.find((type) => type === part.declaredType)
  if (!declared && !options.readPastWrongType) throw wrongType(part, rule)
  let verdict: UploadRefusal | UploadType | undefined = declared ? undefined : wrongType(part, rule)
  let head = Buffer.alloc(0)
  let size = 0
  const hash = createHash('sha256')
  // Compared with what the client declared: a PNG named .pdf is as wrong as a script named .png.
  const decide = () => {
    if (verdict !== undefined) return
    verdict = sniffType(head) === declared ? declared : wrongType(part, rule)
  }
  const inspect = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length
      if (size > rule.maxBytes) return done(fileTooLarge(part.field, rule.maxBytes))
      if (head.length < SNIFF_BYTES) {
        head = Buffer.concat([head, chunk.subarray(0, SNIFF_BYTES - head.length)])
        if (head.length === SNIFF_BYTES) decide()
      }
      if (verdict instanceof UploadRefusal) return options.readPastWrongType ? done() : done(verdict)
      hash.update(chunk)
      done(null, chunk)
    },
    flush(done) {
      // A named file with no bytes: not a wrong type, an empty one (an empty file input sends no name, and is no file).
      if (size === 0 && verdict === undefined) verdict = emptyFile(part.field)
      decide() // a file shorter than the longest signature
      done(verdict instanceof UploadRefusal && !options.readPastWrongType ? verdict : null)
    },
  })
  const tempPath = path.join(options.dir, `${TEMP_PREFIX}${randomUUID()}`)
  liveFiles.add(tempPath)
  // 'wx': a fresh file, never one that is already there; 0600: for this process only.
  const file = createWriteStream(tempPath, { flags: 'wx', mode: 0o600 })
  try {
    await pipeline(part.stream, inspect, file, { signal: options.signal })
  } catch (error) {
    // A part refused at once can fail before the file is open: removed now, it would be created just after.
    if (!file.closed) await new Promise<void>((resolve) => file.once('close', () => resolve()))
    await removeFiles([tempPath])
    throw options.signal.aborted ? options.signal.reason : error
  }
  if (verdict instanceof UploadRefusal) {
    await removeFiles([tempPath])
    throw verdict
  }
  return { name: displayName(part.filename), type: declared!, size, sha256: hash.digest('hex'), path: tempPath }
}
