/**
 * Lingering close (docs/decisions/039-lingering-close.md): a socket closed with unread bytes is reset
 * by the kernel, and a client busy writing sees the reset before the response. So after a response sent
 * before the body arrived, the rest is read and discarded, within bounds, before closing.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { onSendHookHandler } from 'fastify'

export interface LingerBounds {
  readonly maxBytes: number
  readonly maxMs: number
}

/**
 * 16 MiB: more than both ends' socket buffers and the default UPLOAD_MAX_BYTES, so a client that
 * writes its whole body before it reads still gets its 413. 5 s: enough to send that at 3 MiB/s.
 */
export const LINGER_BOUNDS: LingerBounds = { maxBytes: 16 * 1024 * 1024, maxMs: 5_000 }

/** Kept open, Node would take in the rest of the body, however large, to reuse the connection. */
export function closeAfterUnreadBody(bounds: LingerBounds = LINGER_BOUNDS): onSendHookHandler {
  return function closeAfterUnreadBody(request, reply, payload, done) {
    if (!request.raw.complete) {
      reply.header('connection', 'close')
      lingerOnClose(request.raw, reply.raw, bounds)
    }
    done(null, payload)
  }
}

/** Node's net.Socket has it; its types leave it out. */
type ClosingSocket = Socket & { destroySoon(): void }

/**
 * Node drops an unread body's rest unseen and ends with `socket.destroySoon()`, destroying the socket
 * at once, unread bytes and all: here the rest is read and counted until the client stops or a bound.
 */
function lingerOnClose(request: IncomingMessage, response: ServerResponse, bounds: LingerBounds): void {
  const socket = request.socket as ClosingSocket
  if (Object.hasOwn(socket, 'destroySoon')) return
  let drained = 0
  let closing = false
  let timer: NodeJS.Timeout | undefined
  const close = () => {
    clearTimeout(timer)
    socket.destroy()
  }
  // Before Node's own 'finish' listener, which would drop the body unseen.
  response.prependOnceListener('finish', () => {
    if (request.complete) return
    // Node's own drain drops the listeners too.
    request.unpipe()
    request.removeAllListeners('data')
    request.on('data', (chunk: Buffer) => {
      drained += chunk.length
      if (closing && drained > bounds.maxBytes) close()
    })
    // Node's parser still reads the body, so chunked framing is followed.
    request.once('end', () => closing && close())
    request.resume()
  })
  const destroySoon = socket.destroySoon
  socket.destroySoon = function lingerThenDestroy() {
    if (request.complete || socket.destroyed) return destroySoon.call(socket)
    closing = true
    socket.end()
    timer = setTimeout(close, bounds.maxMs)
    socket.once('close', () => clearTimeout(timer))
    if (drained > bounds.maxBytes) close()
  }
}
