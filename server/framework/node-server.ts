/** Where Node's HTTP server would answer by itself, the app answers instead. */
import type { Duplex } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { errors } from './error-registry.js'
import type { ErrorResponses } from './error-responses.js'

export function handleNodeServerEvents(app: FastifyInstance, errorResponses: ErrorResponses): void {
  // Above the keep-alive timeout (Node's advice against the idle-close race), below requestTimeout.
  app.server.headersTimeout = 75_000
  // With no 'connect' listener, Node drops the connection without a word.
  app.server.on('connect', (_request, socket: Duplex) => {
    const reqId = errorResponses.writeToSocket(socket, undefined, errors.CONNECT())
    app.log.info({ reqId, method: 'CONNECT', status: 400 }, 'request refused: CONNECT')
  })
  // A request whose Expect Node does not know reaches the app (refused in checkHost) instead of Node's bare 417.
  app.server.on('checkExpectation', (req, res) => app.server.emit('request', req, res))
  // Met when the app starts reading the body, not on arrival as Node would: a request refused
  // before that gets its final answer alone, and the client never sends the body.
  app.server.on('checkContinue', (req, res) => {
    // Readable calls _read whenever a reader wants data, flowing or paused: the first call says the
    // body is wanted. The drain after the response (lingering-close.ts) finds headers sent.
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
