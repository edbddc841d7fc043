/**
 * HTTP as a hostile or odd client sends it: bytes written to a socket as given
 * (duplicate headers, no Host, raw UTF-8, control characters), and the answer read
 * back until the server closes or the first whole response has arrived.
 */
import net from 'node:net'

export interface RawResponse {
  readonly status: number
  /** Header names in lower case; a repeated header keeps its last value. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/** Sends `request` (a whole HTTP/1.x request, `\r\n` line ends) to `origin` and parses the answer. */
export function rawRequest(origin: string, request: string | Buffer, timeoutMs = 10_000): Promise<RawResponse> {
  const { hostname, port } = new URL(origin)
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname)
    const chunks: Buffer[] = []
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no whole answer within ${timeoutMs} ms: ${Buffer.concat(chunks).toString('latin1').slice(0, 200)}`))
    }, timeoutMs)
    const finish = () => {
      const parsed = parseResponse(Buffer.concat(chunks))
      if (!parsed) return false
      clearTimeout(timer)
      socket.destroy()
      resolve(parsed)
      return true
    }
    socket.on('data', (chunk) => {
      chunks.push(chunk)
      finish()
    })
    socket.on('end', () => {
      if (!finish()) {
        clearTimeout(timer)
        reject(new Error(`the server closed without a whole answer: ${Buffer.concat(chunks).toString('latin1').slice(0, 200)}`))
      }
    })
    socket.on('error', (error) => {
      if (!finish()) {
        clearTimeout(timer)
        reject(error)
      }
    })
    socket.write(request)
  })
}

/** A whole response with a Content-Length, or undefined while more is to come. */
function parseResponse(bytes: Buffer): RawResponse | undefined {
  const end = bytes.indexOf('\r\n\r\n')
  if (end === -1) return undefined
  const [statusLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const length = Number(headers['content-length'] ?? 0)
  const body = bytes.subarray(end + 4)
  if (body.length < length) return undefined
  return { status: Number(statusLine!.split(' ')[1]), headers, body: body.subarray(0, length).toString('utf8') }
}

/** Sends `request` to `origin` and resolves with every byte the server sent until it closed the connection. */
export function rawUntilClosed(origin: string, request: string | Buffer, timeoutMs = 10_000): Promise<string> {
  return untilClosed(origin, request, timeoutMs)
}

/**
 * A request with `Expect: 100-continue` as a careful client sends it: `head` (which must
 * carry the Expect header) first, `body` only once the server says 100 Continue. Resolves
 * with every byte the server sent until it closed the connection, and whether the body went.
 */
export async function rawWithContinue(
  origin: string,
  head: string,
  body: string,
  timeoutMs = 10_000,
): Promise<{ answer: string; bodySent: boolean }> {
  let bodySent = false
  const answer = await untilClosed(origin, head, timeoutMs, (soFar, socket) => {
    if (!bodySent && soFar.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) {
      bodySent = true
      socket.write(body)
    }
  })
  return { answer, bodySent }
}

/** Writes `request`, then collects the answer (calling `onData` with all of it so far) until the server closes. */
function untilClosed(
  origin: string,
  request: string | Buffer,
  timeoutMs: number,
  onData?: (soFar: string, socket: net.Socket) => void,
): Promise<string> {
  const { hostname, port } = new URL(origin)
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname)
    let answer = ''
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`the server kept the connection open for ${timeoutMs} ms: ${answer.slice(0, 200)}`))
    }, timeoutMs)
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1')
      onData?.(answer, socket)
    })
    socket.on('close', () => {
      clearTimeout(timer)
      resolve(answer)
    })
    socket.on('error', () => {}) // a reset still ends in 'close', with what arrived before it
    socket.write(request)
  })
}
