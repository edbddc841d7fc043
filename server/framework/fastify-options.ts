/** The Fastify instance's options (server/framework/app.ts). */
import { randomUUID } from 'node:crypto'
import type { DestinationStream } from 'pino'
import type { Server } from 'node:http'
import { LogController, type FastifyBaseLogger, type FastifyHttpOptions } from 'fastify'
import type { AppConfig } from './config.js'
import { parserClientError, REQUEST_ID_HEADER, type ErrorResponses } from './error-responses.js'
import { classify } from './failures.js'
import type { RequestTracing } from './tracing/request-tracing.js'

/** Nothing to break a log line. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

export interface InstanceOptions {
  readonly logStream?: DestinationStream | undefined
  readonly development?: unknown
}

/** `log`: the parser's refusals come after the instance's logger exists. */
export function fastifyOptions(
  config: AppConfig,
  options: InstanceOptions,
  errorResponses: ErrorResponses,
  log: () => FastifyBaseLogger,
  tracing?: RequestTracing,
): FastifyHttpOptions<Server> {
  const { development } = options
  return {
    logger: { level: config.logLevel, ...(options.logStream ? { stream: options.logStream } : {}) },
    // With traces on, each request's logger carries its trace id.
    ...(tracing ? { childLoggerFactory: tracing.childLogger } : {}),
    // Fastify takes a hop count too, though its types leave numbers out.
    trustProxy: config.trustProxy as boolean | string[],
    // A UUID is unique across instances, so an id from any log line finds one request.
    requestIdHeader: false,
    genReqId: (request) => {
      const incoming = request.headers[REQUEST_ID_HEADER]
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID()
    },
    // Longer than the idle timeout of common balancers (60 s), so they close first and
    // never send a request on a connection we are closing.
    keepAliveTimeout: 72_000,
    requestTimeout: 120_000,
    // A request after close() began is served with `Connection: close`, not refused with 503:
    // a proxy may not retry a refused form post elsewhere.
    return503OnClosing: false,
    // Fastify's HEAD route drops the body before compression's onSend, so a HEAD gave the
    // uncompressed length: server/framework/plugins/head.ts answers HEAD instead.
    exposeHeadRoutes: false,
    ...(development ? { logController: new LogController({ disableRequestLogging: true }) } : {}),
    // Starting Vite can take past Fastify's 10 s on a busy machine; one that never finishes shows anyway: no "ready" line.
    ...(development ? { pluginTimeout: 0 } : {}),
    // Node would answer a request without Host with a bare 400: checkHost refuses it the app's way.
    http: { requireHostHeader: false },
    frameworkErrors: function refuseBeforeRouting(error, request, reply) {
      tracing?.endWithResponse(request, reply)
      request.log.info({ code: error.code }, 'request refused before routing')
      const failure = classify(request, error, 'request failed')
      if (failure.type !== 'client-error') return errorResponses.sendFailure(request, reply, failure, { hooksRan: false })
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
