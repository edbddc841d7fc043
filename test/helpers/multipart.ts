/**
 * Multipart forms as a browser sends them, and as a hostile client might: bodies
 * built from text fields and files, sent over a real socket (http.request) so the
 * server reads them as it reads any client's, in pieces, with the option to stop
 * half-way. Files of each allowed type are made here: a signature and filler bytes.
 */
import { randomBytes } from 'node:crypto'
import http from 'node:http'

export type FormPart =
  | { readonly name: string; readonly value: string }
  | { readonly name: string; readonly filename: string; readonly type: string; readonly content: Buffer }

export const BOUNDARY = '----TestFormBoundary7MA4YWxkTrZu0gW'

/** A file of `size` bytes that starts like a real file of that type. */
export function fileOf(type: 'png' | 'jpeg' | 'pdf' | 'text', size: number): Buffer {
  const signature = {
    png: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    jpeg: Buffer.from([0xff, 0xd8, 0xff, 0xe0]),
    pdf: Buffer.from('%PDF-1.7\n'),
    text: Buffer.from('just some text\n'),
  }[type]
  return Buffer.concat([signature, randomBytes(Math.max(0, size - signature.length))]).subarray(0, size)
}

/** The bytes of one part's head: its boundary line and headers. */
function partHead(part: FormPart): Buffer {
  const disposition =
    'filename' in part
      ? `Content-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: ${part.type}\r\n`
      : `Content-Disposition: form-data; name="${part.name}"\r\n`
  return Buffer.from(`--${BOUNDARY}\r\n${disposition}\r\n`)
}

/** A whole multipart body. */
export function multipartBody(parts: readonly FormPart[]): Buffer {
  const chunks = parts.flatMap((part) => [partHead(part), 'filename' in part ? part.content : Buffer.from(part.value), Buffer.from('\r\n')])
  return Buffer.concat([...chunks, Buffer.from(`--${BOUNDARY}--\r\n`)])
}

export const MULTIPART_TYPE = `multipart/form-data; boundary=${BOUNDARY}`

export interface Answer {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
  /** How many body bytes the client had written when the answer came. */
  readonly sentBeforeAnswer: number
  json(): any
}

export interface SendOptions {
  readonly headers?: Record<string, string>
  /** Send only this many bytes of the body, then keep the request open (a stalled or slow client). */
  readonly stopAfter?: number
}

/**
 * POSTs `body` to `origin + path` in 64 KiB writes, chunked unless a content-length
 * header is given, as the page's own origin unless told otherwise. Resolves with the
 * answer as soon as it has come, whether or not the body was all sent.
 */
export function send(origin: string, path: string, body: Buffer, options: SendOptions = {}): Promise<Answer> {
  const url = new URL(path, origin)
  return new Promise((resolve, reject) => {
    let sent = 0
    let answered = false
    const request = http.request(url, {
      method: 'POST',
      agent: false,
      headers: { origin, 'content-type': MULTIPART_TYPE, ...options.headers },
    })
    request.on('response', (response) => {
      answered = true
      const sentBeforeAnswer = sent
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        resolve({ status: response.statusCode!, headers: response.headers, body: text, sentBeforeAnswer, json: () => JSON.parse(text) })
        request.destroy()
      })
      response.on('error', reject)
    })
    // Once the server has answered it may close while we still write: that is what a refusal does.
    request.on('error', (error) => {
      if (!answered) reject(error)
    })
    request.flushHeaders() // even when no byte of the body is to follow
    const limit = Math.floor(Math.min(options.stopAfter ?? body.length, body.length))
    const writeMore = () => {
      while (sent < limit && !answered && !request.destroyed) {
        const chunk = body.subarray(sent, Math.min(limit, sent + 64 * 1024))
        sent += chunk.length
        if (!request.write(chunk)) return void request.once('drain', writeMore)
      }
      if (sent >= body.length && !request.destroyed) request.end()
    }
    writeMore()
  })
}
