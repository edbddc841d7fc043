/**
 * Lingering close, as nginx and Apache do it: a response sent before the request's body
 * has all arrived (a guard's redirect, a 413, any client error sent without reading the
 * body) closes the connection, but not at once. Closed while the client is still
 * sending, the socket has unread bytes, so the kernel resets the connection instead of
 * ending it, and a client busy writing sees the reset before it reads the response (a
 * write fails with EPIPE or ECONNRESET, and many clients give up there). So the server
 * sends the response and its FIN, reads and discards what still comes, and closes once
 * the client has stopped: the body ended, the client closed its side, or a bound was
 * reached (docs/decisions/039-lingering-close.md).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { onSendHookHandler } from 'fastify'

export interface LingerBounds {
  /** The most body bytes read and discarded after the response. */
  readonly maxBytes: number
  /** The longest the connection stays open after the response has been written. */
  readonly maxMs: number
}

/**
 * 16 MiB: more than the socket buffers of both ends hold, all of which a client may
 * have written before it could see the response, and more than a form with files may
 * have by default (UPLOAD_MAX_BYTES), so a client that writes its whole body before it
 * reads still gets its 413; a fraction of a body worth refusing unread. 5 s: enough to
 * send that at 3 MiB/s; a client that reads the response stops within a round trip.
 */
export const LINGER_BOUNDS: LingerBounds = { maxBytes: 16 * 1024 * 1024, maxMs: 5_000 }

/**
 * The onSend hook: a response that goes out before the body has all arrived carries
 * `Connection: close` (kept open, Node would take in the rest of the body, however
 * large, to reuse the connection), and the connection lingers after it.
 */
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
 * Once the response to `request` is written, Node's HTTP server drops the rest of an
 * unread body inside its parser, unseen, and ends the connection with
 * `socket.destroySoon()`: the FIN, then the socket destroyed at once, unread bytes and
 * all. For this response the rest is read here instead, counted, and the socket
 * destroyed only once the client has stopped or a bound is reached.
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
    // Whatever read the body before the response has no use for the rest (Node's own
    // drain drops its listeners too).
    request.unpipe()
    request.removeAllListeners('data')
    request.on('data', (chunk: Buffer) => {
      drained += chunk.length
      if (closing && drained > bounds.maxBytes) close()
    })
    // Node's parser still reads the body, so chunked framing is followed; its end, or
    // the client closing its side (a parser error, then Node destroys the socket), ends it.
    request.once('end', () => closing && close())
    request.resume()
  })
  const destroySoon = socket.destroySoon
  socket.destroySoon = function lingerThenDestroy() {
    // The body arrived meanwhile, or the client is gone: nothing is left to read.
    if (request.complete || socket.destroyed) return destroySoon.call(socket)
    closing = true
    socket.end()
    timer = setTimeout(close, bounds.maxMs)
    socket.once('close', () => clearTimeout(timer))
    if (drained > bounds.maxBytes) close()
  }
}
