/**
 * A response sent before the request's body has all arrived reaches the client whole,
 * over a real socket: the server reads and drops the rest of the body, within a bound,
 * before it closes, instead of resetting the connection under a client still sending
 * (server/framework/lingering-close.ts). The clients here are raw sockets, twenty times
 * each: one that writes its whole body before it reads (as a blocking client does, and
 * as any client that gives up on a failed write ends up doing), one that never stops.
 */
import net from 'node:net'
import t from 'tap'
import { LINGER_BOUNDS } from '../../server/framework/lingering-close.js'
import { listenTestApp } from '../helpers/app.js'
import { fileOf, multipartBody, MULTIPART_TYPE } from '../helpers/multipart.js'
import { MiB } from '../../shared/framework/uploads.js'

const ROUNDS = 20

interface Outcome {
  /** Every byte the server sent until the connection ended. */
  readonly response: string
  /** How the connection ended for the client: undefined when cleanly, else the error code. */
  readonly error: string | undefined
}

/** The head of a multipart POST to `path` from this site's own page, framed by `framing`. */
function postHead(origin: string, path: string, framing: string): string {
  const { host } = new URL(origin)
  return `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${origin}\r\nContent-Type: ${MULTIPART_TYPE}\r\n${framing}\r\n\r\n`
}

/** `body` in one chunk of chunked transfer coding, then the last chunk. */
function chunked(body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')])
}

/**
 * Writes `head` and `body` without reading a byte, then reads the response until the
 * server closes. A write that fails (the server reset the connection) loses whatever
 * response had arrived unread: what a client that sends first and reads after sees.
 */
function sendThenRead(origin: string, head: string, body: Buffer, timeoutMs = 10_000): Promise<Outcome> {
  const { hostname, port } = new URL(origin)
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname)
    socket.pause()
    let response = ''
    let error: string | undefined
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`the connection was still open after ${timeoutMs} ms: ${response.slice(0, 100)}`))
    }, timeoutMs)
    socket.on('error', (e: NodeJS.ErrnoException) => (error ??= e.code ?? e.message))
    socket.on('close', () => {
      clearTimeout(timer)
      resolve({ response, error })
    })
    socket.write(head)
    socket.write(body, (failed) => {
      if (failed) return
      socket.on('data', (chunk: Buffer) => (response += chunk.toString('latin1')))
      socket.resume()
    })
  })
}

/** Of `ROUNDS` outcomes, those whose response starts with `statusLine`; the others described. */
async function tally(round: () => Promise<Outcome>, statusLine: string): Promise<{ whole: number; others: string[] }> {
  let whole = 0
  const others: string[] = []
  for (let i = 0; i < ROUNDS; i++) {
    const { response, error } = await round()
    if (response.startsWith(`HTTP/1.1 ${statusLine}\r\n`)) whole++
    else others.push(`${JSON.stringify(response.slice(0, 40))} (${error ?? 'closed'})`)
  }
  return { whole, others }
}

t.test('a signed-out multipart post to a guarded page, 8 MiB sent before reading: the 303 arrives, 20 of 20', async (t) => {
  const { origin } = await listenTestApp(t)
  const body = multipartBody([
    { name: '_action', value: 'signOut' },
    { name: 'attachment', filename: 'scan.pdf', type: 'application/pdf', content: fileOf('pdf', 8 * MiB) },
  ])
  const head = postHead(origin, '/account', `Content-Length: ${body.length}`)
  const first = await sendThenRead(origin, head, body)
  t.match(first.response, /\r\nlocation: \/login\?next=%2Faccount\r\n/, 'the guard sends to the sign-in page')
  t.match(first.response, /\r\nconnection: close\r\n/i, 'and closes the connection after')
  const { whole, others } = await tally(() => sendThenRead(origin, head, body), '303 See Other')
  t.same(others, [], 'no response lost')
  t.equal(whole, ROUNDS, `${whole} of ${ROUNDS} read their 303`)
})

t.test('a chunked upload past the limits, 8 MiB sent before reading: the 413 arrives, 20 of 20', async (t) => {
  const { origin } = await listenTestApp(t, 'production', { config: { uploadMaxBytes: 1 * MiB } })
  const form = multipartBody([
    { name: '_action', value: 'send' },
    { name: 'name', value: 'Ada' },
    { name: 'email', value: 'ada@example.com' },
    { name: 'message', value: 'Too large' },
    { name: 'attachment', filename: 'scan.pdf', type: 'application/pdf', content: fileOf('pdf', 8 * MiB) },
  ])
  const head = postHead(origin, '/contact', 'Transfer-Encoding: chunked')
  const body = chunked(form)
  const first = await sendThenRead(origin, head, body)
  t.match(first.response, 'A form with files may be at most 1 MiB', 'the limit is named')
  t.match(first.response, /\r\nconnection: close\r\n/i, 'the rest of the body was not taken in before the response')
  const { whole, others } = await tally(() => sendThenRead(origin, head, body), '413 Payload Too Large')
  t.same(others, [], 'no response lost')
  t.equal(whole, ROUNDS, `${whole} of ${ROUNDS} read their 413`)
})

/**
 * A client that sends forever and never closes, reading as it goes (it ignores the
 * server's FIN): writes `chunk` every `everyMs`, or as fast as the socket takes them.
 */
function sendForever(origin: string, head: string, chunk: Buffer, everyMs?: number) {
  const { hostname, port } = new URL(origin)
  const socket = net.connect({ port: Number(port), host: hostname, allowHalfOpen: true })
  let response = ''
  let sent = 0
  let interval: NodeJS.Timeout | undefined
  const closed = new Promise<{ response: string; sent: number; at: number }>((resolve) => {
    socket.on('close', () => {
      clearInterval(interval)
      resolve({ response, sent, at: Date.now() })
    })
  })
  socket.on('error', () => {}) // the server's reset, once it stops reading, is expected
  socket.on('data', (data: Buffer) => (response += data.toString('latin1')))
  const write = () => {
    if (socket.destroyed || socket.writableEnded) return false
    sent += chunk.length
    return socket.write(chunk)
  }
  const flood = () => {
    while (write());
    if (!socket.destroyed) socket.once('drain', flood)
  }
  socket.write(head, () => {
    if (everyMs === undefined) flood()
    else interval = setInterval(write, everyMs)
  })
  return { closed, destroy: () => socket.destroy() }
}

/** Waits for `promise`, failing after `ms`: a connection the server never closed. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)))
  try {
    return await Promise.race([promise, late])
  } finally {
    clearTimeout(timer)
  }
}

t.test('a client that never stops sending: it gets its response, then the connection closes within the bound', async (t) => {
  t.test('as fast as it can: closed once the byte bound is read', async (t) => {
    const { origin } = await listenTestApp(t)
    const head = postHead(origin, '/account', `Content-Length: ${1024 * 1024 * MiB}`)
    const client = sendForever(origin, head, Buffer.alloc(64 * 1024, 'a'))
    t.teardown(client.destroy)
    const { response, sent } = await within(client.closed, LINGER_BOUNDS.maxMs + 5_000, 'the flooding client was closed')
    t.match(response, /^HTTP\/1\.1 303 See Other\r\n/, 'it got its response')
    // What it sent past the bound is what the socket buffers of both ends took in.
    t.ok(sent < LINGER_BOUNDS.maxBytes + 64 * MiB, `${Math.round(sent / MiB)} MiB sent before the close`)
  })

  t.test('a trickle: closed once the time bound has passed', async (t) => {
    const bounds = { maxBytes: LINGER_BOUNDS.maxBytes, maxMs: 500 }
    const { origin } = await listenTestApp(t, 'production', { lingerBounds: bounds })
    const head = postHead(origin, '/account', 'Transfer-Encoding: chunked')
    const client = sendForever(origin, head, Buffer.from('10\r\n0123456789abcdef\r\n'), 20)
    t.teardown(client.destroy)
    const start = Date.now()
    const { response, at } = await within(client.closed, bounds.maxMs + 5_000, 'the trickling client was closed')
    t.match(response, /^HTTP\/1\.1 303 See Other\r\n/, 'it got its response')
    t.ok(at - start >= bounds.maxMs, `closed after ${at - start} ms, once the bound had passed`)
  })
})

t.test('a client that stops once it has the response: the connection ends as soon as it closes, without waiting out the bound', async (t) => {
  // A byte bound the body cannot reach: only the client's close (or the time bound) can end it.
  const { origin } = await listenTestApp(t, 'production', { lingerBounds: { maxBytes: 1024 * MiB, maxMs: LINGER_BOUNDS.maxMs } })
  const body = multipartBody([{ name: 'attachment', filename: 'scan.pdf', type: 'application/pdf', content: fileOf('pdf', 32 * MiB) }])
  const { hostname, port } = new URL(origin)
  const socket = net.connect(Number(port), hostname)
  let response = ''
  let stopped = false
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now())))
  socket.on('error', () => {})
  let stoppedAt = 0
  socket.on('data', (data: Buffer) => {
    response += data.toString('latin1')
    if (!stopped && response.includes('\r\n\r\n')) {
      // The response is in: stop writing, with nothing left queued, and close this side.
      stopped = true
      stoppedAt = Date.now()
      socket.end()
    }
  })
  socket.write(postHead(origin, '/account', `Content-Length: ${body.length}`))
  // The body a piece at a time, each written once the last has drained, until the response comes.
  const PIECE = 64 * 1024
  for (let offset = 0; offset < body.length && !stopped; offset += PIECE) {
    if (!socket.write(body.subarray(offset, offset + PIECE))) {
      await new Promise<void>((resolve) => {
        const done = () => resolve()
        socket.once('drain', done)
        socket.once('data', done)
        socket.once('close', done)
      })
    }
  }
  t.ok(stopped, 'the response came before the whole body was sent')
  const at = await within(closed, LINGER_BOUNDS.maxMs + 5_000, 'the connection ended')
  t.match(response, /^HTTP\/1\.1 303 See Other\r\n/)
  t.ok(at - stoppedAt < LINGER_BOUNDS.maxMs, `ended ${at - stoppedAt} ms after the client closed its side, before the time bound`)
})

t.test('keep-alive is untouched: a body read whole leaves the connection open for the next request', async (t) => {
  const { origin } = await listenTestApp(t)
  const { hostname, port, host } = new URL(origin)
  const socket = net.connect(Number(port), hostname)
  t.teardown(() => socket.destroy())
  let received = ''
  socket.on('data', (data: Buffer) => (received += data.toString('latin1')))
  const statusLines = () => received.match(/HTTP\/1\.1 \d{3} [^\r]*/g) ?? []
  const form = '_action=signOut'
  socket.write(
    `POST /account HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${origin}\r\nContent-Type: application/x-www-form-urlencoded\r\n` +
      `Content-Length: ${form.length}\r\n\r\n${form}`,
  )
  await within(
    new Promise<void>((resolve) => socket.on('data', () => statusLines().length === 1 && received.includes('\r\n\r\n') && resolve())),
    5_000,
    'the first response',
  )
  t.match(statusLines()[0], '303 See Other', 'a signed-out post, its body read whole: the 303')
  t.notMatch(received, /\r\nconnection: close\r\n/i, 'without Connection: close')
  socket.write(`GET /about HTTP/1.1\r\nHost: ${host}\r\n\r\n`)
  await within(
    new Promise<void>((resolve) => socket.on('data', () => received.includes('</html>') && resolve())),
    5_000,
    'the second response, on the same connection',
  )
  t.match(statusLines()[1], '200 OK', 'the next request on the same connection gets its response')
  t.notOk(socket.destroyed, 'and the connection is still open')
})
