/**
 * Every request a trace (docs/deploy.md, "Traces"), when tracing is configured. The span
 * starts where Fastify makes the request's logger, so every log line of the request, the
 * first included, carries `trace_id` and `span_id`; the rest of the request runs inside
 * its context, so the steps (./step-spans.ts), Redis commands and the relay's request
 * become its children. It ends when the response is done or the client left.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import proxyAddr from '@fastify/proxy-addr'
import type { Context, Span } from '@opentelemetry/api'
import { declarePageRouteLabel, routeLabelOf } from '../metrics/route-label.js'
import { requestKindOf } from '../request-kinds.js'
import type { TracingConfig } from './tracing-config.js'
import { STATUS_ERROR, type Tracing } from './tracing.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Undefined unless the OpenTelemetry variables configure tracing. */
    tracing: Tracing | undefined
  }
  interface FastifyRequest {
    /** The request span's context, with tracing on: what its steps' spans are children of. */
    traceContext?: Context | undefined
    /** Its ids, for the error report. */
    traceIds?: { readonly traceId: string; readonly spanId: string } | undefined
  }
}

const STARTED = Symbol('request span')
type TracedMessage = IncomingMessage & { [STARTED]?: { readonly span: Span; readonly context: Context; watched?: true } }

/** Whose `traceparent` is believed: the peers TRUST_PROXY trusts, as Fastify believes their X-Forwarded-For. */
function trustedPeers(trustProxy: unknown): (address: string) => boolean {
  if (trustProxy === true) return () => true
  if (Array.isArray(trustProxy) && trustProxy.length > 0) {
    const trust = proxyAddr.compile(trustProxy as string[])
    return (address) => trust(address, 0)
  }
  // A hop count trusts whoever is next: that is the proxy in front.
  if (typeof trustProxy === 'number' && trustProxy > 0) return () => true
  return () => false
}

export interface RequestTracing {
  /** Fastify's `childLoggerFactory`: starts the request's span and puts its ids on the logger. */
  childLogger(logger: FastifyBaseLogger, bindings: Record<string, unknown>, options: object, raw: IncomingMessage): FastifyBaseLogger
  /** Loads the SDK and adds the hooks; the first of the app's hooks. */
  register(app: FastifyInstance): void
  /** For a request refused before routing (no hook runs for it): its span still ends with its response. */
  endWithResponse(request: FastifyRequest, reply: FastifyReply): void
}

/** Ended once, whichever comes first: the response sent, or the connection gone. */
function endWithResponse(request: FastifyRequest, reply: FastifyReply): TracedMessage[typeof STARTED] {
  const started = (request.raw as TracedMessage)[STARTED]
  if (!started || started.watched) return started
  started.watched = true
  reply.raw.once('close', () => endRequestSpan(request, started.span, reply.raw))
  return started
}

export function requestTracing(config: TracingConfig, version: string, trustProxy: unknown): RequestTracing {
  let tracing: Tracing | undefined
  const trusted = trustedPeers(trustProxy)
  return {
    childLogger(logger, bindings, options, raw) {
      if (!tracing) return logger.child(bindings, options)
      const started = tracing.startRequest(raw, trusted(raw.socket?.remoteAddress ?? ''))
      ;(raw as TracedMessage)[STARTED] = started
      const { traceId, spanId } = started.span.spanContext()
      return logger.child({ ...bindings, trace_id: traceId, span_id: spanId }, options)
    },
    register(app) {
      app.decorateRequest('traceContext', undefined)
      app.decorateRequest('traceIds', undefined)
      if (!app.hasRequestDecorator('pageRouteId')) declarePageRouteLabel(app)
      app.register(async function startTracing() {
        const { startTracer } = await import('./tracer.js')
        tracing = await startTracer(config, version)
        app.tracing = tracing
      })
      app.addHook('onClose', async () => tracing?.shutdown())
      app.addHook('onRequest', function runInRequestSpan(request, reply, done) {
        const started = endWithResponse(request, reply)
        if (!started || !tracing) return done()
        request.traceContext = started.context
        request.traceIds = started.span.spanContext()
        tracing.run(started.context, done)
      })
    },
    endWithResponse: (request, reply) => void endWithResponse(request, reply),
  }
}

function endRequestSpan(request: FastifyRequest, span: Span, response: ServerResponse): void {
  const options = request.routeOptions
  const route = routeLabelOf(request, options.url)
  span.updateName(`${request.method} ${route}`)
  span.setAttributes({
    'http.route': route,
    'url.path': request.url.split('?', 1)[0]!,
    'app.request.kind': requestKindOf(request, options),
    'client.address': request.ip,
  })
  // A client that left before the response was done: no status of ours reached it.
  if (!response.writableFinished) span.setAttribute('app.client_left', true)
  if (response.headersSent) {
    span.setAttribute('http.response.status_code', response.statusCode)
    if (response.statusCode >= 500) span.setStatus({ code: STATUS_ERROR })
  }
  span.end()
}
