/**
 * The Fastify instance's options (server/framework/app.ts): timeouts a balancer in front
 * can live with, request ids, HEAD by the GET route, and what Fastify or Node's parser
 * refuse before a route runs answered like every other refusal.
 */
import { randomUUID } from 'node:crypto'
import type { DestinationStream } from 'pino'
import type { Server } from 'node:http'
import { LogController, type FastifyBaseLogger, type FastifyHttpOptions } from 'fastify'
import type { AppConfig } from './config.js'
import { parserClientError, REQUEST_ID_HEADER, type ErrorResponses } from './error-responses.js'
import { classify } from './failures.js'

/** What an incoming request id may look like: no spaces, nothing to break a log line. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

export interface InstanceOptions {
  /** Where log lines go: the bounded stdout, a test's capture; pino's stdout otherwise. */
  readonly logStream?: DestinationStream | undefined
  /** Development logs one line per request of its own. */
  readonly development?: unknown
}

/** `log`: the instance's logger, once it exists (the parser's refusals are logged after). */
export function fastifyOptions(
  config: AppConfig,
  options: InstanceOptions,
  errorResponses: ErrorResponses,
  log: () => FastifyBaseLogger,
): FastifyHttpOptions<Server> {
  const { development } = options
  return {
    logger: { level: config.logLevel, ...(options.logStream ? { stream: options.logStream } : {}) },
    // Fastify takes a hop count too, though its types leave numbers out.
    trustProxy: config.trustProxy as boolean | string[],
    // The caller's id when it sent a sane one (a proxy's, a client's retry), else a UUID:
    // unique across instances, so an id from any log line finds one request.
    requestIdHeader: false,
    genReqId: (request) => {
      const incoming = request.headers[REQUEST_ID_HEADER]
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID()
    },
    // Longer than the idle timeout of common balancers (60 s), so they close first and
    // never send a request on a connection we are closing.
    keepAliveTimeout: 72_000,
    // A client gets this long to send a whole request, then the connection is cut.
    requestTimeout: 120_000,
    // A request that reaches us after close() began (on a connection opened just before)
    // is served, with `Connection: close`, not refused with 503: a proxy may not retry
    // a refused form post elsewhere.
    return503OnClosing: false,
    // HEAD is answered by the GET route itself (server/framework/plugins/head.ts), not by the
    // HEAD route Fastify would add: that one drops the body before the onSend hooks
    // added for the route afterwards (compression's), so a compressed page's HEAD said
    // neither Content-Encoding nor Vary and gave the uncompressed length, and a 304
    // got `Content-Length: 0`.
    exposeHeadRoutes: false,
    // Development logs one line per request of its own (server/framework/development/request-log.ts).
    ...(development ? { logController: new LogController({ disableRequestLogging: true }) } : {}),
    // Development's Vite plugin starts Vite (pre-bundling dependencies, loading the
    // server's modules through its module runner): CPU work that takes as long as the
    // machine needs, past Fastify's 10 s on a busy one, and the server exited instead of
    // starting. A plugin that never finishes shows anyway: no "ready" line.
    ...(development ? { pluginTimeout: 0 } : {}),
    // Node would answer an HTTP/1.1 request without Host with a bare 400 of its own;
    // admitRequest below refuses it the app's way.
    http: { requireHostHeader: false },
    // What Fastify refuses before routing (a malformed URL) and what Node's parser
    // refuses before Fastify sees a request (431, a broken request line) are answered
    // like every other client error: the request kind's form, security headers, a request id.
    frameworkErrors: function refuseBeforeRouting(error, request, reply) {
      request.log.info({ code: error.code }, 'request refused before routing')
      const failure = classify(request, error, 'request failed')
      if (failure.type !== 'client-error') return errorResponses.sendFailure(request, reply, failure)
      return errorResponses.send(request, reply, failure.error, { hooksRan: false })
    },
    clientErrorHandler: function refuseUnparsedRequest(error, socket) {
      const clientError = parserClientError(error)
      if (!clientError || socket.destroyed) return void socket.destroy()
      // Node's parser hands over the bytes it read (its types say otherwise).
      const raw: unknown = error.rawPacket
      const reqId = errorResponses.writeToSocket(socket, Buffer.isBuffer(raw) ? raw : undefined, clientError)
      log().info({ reqId, code: error.code, status: clientError.status }, 'request refused by the HTTP parser')
    },
  }
}
