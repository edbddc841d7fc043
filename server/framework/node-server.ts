/**
 * Where Node's HTTP server would answer by itself, the app answers instead: CONNECT (a
 * 400 in the pages' form; Node drops it), an Expect it does not know (the app's 417
 * rather than Node's bare one), and `Expect: 100-continue`, met when the app first
 * reads the body rather than on arrival.
 */
import type { Duplex } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { errors } from './error-registry.js'
import type { ErrorResponses } from './error-responses.js'

export function answerNodeServerEvents(app: FastifyInstance, errorResponses: ErrorResponses): void {
  // Above the keep-alive timeout (Node's advice against the idle-close race), below requestTimeout.
  app.server.headersTimeout = 75_000
  // CONNECT is for proxies, and this server is not one. Node hands it to 'connect'
  // listeners and, with none, drops the connection without a word; it is a 400 in the
  // pages' form, as nginx answers it, and the connection ends.
  app.server.on('connect', (_request, socket: Duplex) => {
    const reqId = errorResponses.writeToSocket(socket, undefined, errors.CONNECT())
    app.log.info({ reqId, method: 'CONNECT', status: 400 }, 'request refused: CONNECT')
  })
  // A request whose Expect Node does not know reaches the app (refused in admitRequest) instead of Node's bare 417.
  app.server.on('checkExpectation', (req, res) => app.server.emit('request', req, res))
  // Expect: 100-continue is met when the app starts reading the body, not on arrival as
  // Node would: a request refused before that (a host this server does not answer, a
  // cross-origin form post, a spent rate limit, a Content-Length over the limit, a
  // method or page that takes no body) gets its final answer alone, and the client
  // never sends the body. Node closes the connection after such an answer.
  app.server.on('checkContinue', (req, res) => {
    // Readable calls _read whenever a reader wants data, in flowing mode (on('data'),
    // pipe) and paused mode (read(), for await) alike: the first call says the body is
    // wanted. The drain of an unread body after the response (lingering-close.ts): nothing then.
    const read = req._read
    let asked = false
    req._read = function readAfterContinue(size) {
      if (!asked) {
        asked = true
        if (!res.headersSent) res.writeContinue()
      }
      return read.call(this, size)
    }
    app.server.emit('request', req, res)
  })
}
