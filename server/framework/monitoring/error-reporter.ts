/**
 * Where server failures go besides the log (docs/architecture.md, "Errors", "Monitoring"). One digest for
 * the page, the log line and the event; 4xx never come here. Without SENTRY_DSN @sentry/node is never loaded.
 */
import type { FastifyRequest } from 'fastify'

export interface FailureContext {
  readonly digest: string
  readonly routeId?: string
  readonly layoutId?: string
  readonly action?: string
  readonly part?: string
}

export interface RequestFacts {
  readonly requestId: string
  readonly method: string
  readonly path: string
  /** request.ip: the peer, or what a trusted proxy said. */
  readonly clientAddress: string
  /** With traces on: the request's trace and span, so the event leads to its trace. */
  readonly traceId?: string | undefined
  readonly spanId?: string | undefined
}

export interface ErrorReporter {
  captureException(error: unknown, context: FailureContext & RequestFacts): void
  /** Resolves false if `timeoutMs` ran out first. */
  flush(timeoutMs: number): Promise<boolean>
  /** For the monitoring tunnel's own requests. */
  untraced<T>(work: () => Promise<T>): Promise<T>
}

export const noopReporter: ErrorReporter = {
  captureException: () => {},
  flush: async () => true,
  untraced: (work) => work(),
}

declare module 'fastify' {
  interface FastifyInstance {
    errorReporter: ErrorReporter
  }
}

export function reportServerError(request: FastifyRequest, error: unknown, message: string, context: FailureContext): void {
  request.log.error({ err: error, ...context }, message)
  request.server.errorReporter.captureException(error, {
    ...context,
    requestId: String(request.id),
    method: request.method,
    path: request.url.split('?')[0]!,
    clientAddress: request.ip,
    ...(request.traceIds ? { traceId: request.traceIds.traceId, spanId: request.traceIds.spanId } : {}),
  })
}
