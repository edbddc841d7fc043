/**
 * A request that stays in flight as long as the test wants: a valid contact form
 * (JSON answer, so success is a 200) posted with its Content-Length, of which only the
 * first half is written until the test calls `finish()`. The server has the request
 * (its `incoming request` log line) but cannot answer before the rest arrives: what a
 * slow upload looks like to an instance that is told to stop.
 */
import http from 'node:http'
import net from 'node:net'

export interface InFlightRequest {
  /** Writes the rest of the body; resolves with the answer. */
  finish(): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>
}

export function startInFlightPost(origin: string): InFlightRequest {
  const body = Buffer.from('_action=send&name=Ada&email=ada%40example.com&message=' + 'Hello '.repeat(200).trim().replaceAll(' ', '+'))
  const half = Math.floor(body.length / 2)
  const request = http.request(new URL('/contact', origin), {
    method: 'POST',
    agent: false,
    headers: {
      origin,
      accept: 'application/json',
      'content-type': 'application/x-www-form-urlencoded',
      'content-length': String(body.length),
    },
  })
  const answer = new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    request.on('response', (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }))
      response.on('error', reject)
    })
    request.on('error', reject)
  })
  // Rejections are the test's to see, through finish(); none is unhandled meanwhile.
  answer.catch(() => {})
  request.write(body.subarray(0, half))
  return {
    finish() {
      request.end(body.subarray(half))
      return answer
    },
  }
}

/** Whether a new connection to `origin` is refused right now. */
export function connectionRefused(origin: string): Promise<boolean> {
  const { hostname, port } = new URL(origin)
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname)
    socket.once('connect', () => {
      socket.destroy()
      resolve(false)
    })
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'))
  })
}

/** Waits until the server at `origin` has closed its listener (the drain's second step). */
export async function waitUntilRefused(origin: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await connectionRefused(origin))) {
    if (Date.now() > deadline) throw new Error(`${origin} still accepts connections after ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}
