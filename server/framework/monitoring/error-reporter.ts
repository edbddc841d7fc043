/**
 * Where server failures go besides the log (docs/architecture.md, "Errors", "Monitoring"). Every 5xx path calls
 * `reportServerError`, which writes the log line and hands the error to the reporter
 * with the same digest, so the page's digest, the log line and the monitoring event
 * always agree. Redirects, not-founds, validation failures and other 4xx never come
 * here. Without SENTRY_DSN the reporter does nothing and @sentry/node is never loaded.
 */
import type { FastifyRequest } from 'fastify'

export interface FailureContext {
  readonly digest: string
  readonly routeId?: string
  /** The layout whose loader or action failed. */
  readonly layoutId?: string
  readonly action?: string
  /** The deferred part of a loader's data that failed (its key). */
  readonly part?: string
}

/** What a report says of the request that failed. */
export interface RequestFacts {
  readonly requestId: string
  readonly method: string
  readonly path: string
  /** The client's address as the app trusts it (request.ip: the peer, or what a trusted proxy said). */
  readonly clientAddress: string
}

export interface ErrorReporter {
  captureException(error: unknown, context: FailureContext & RequestFacts): void
  /** Sends what is queued; resolves false if `timeoutMs` ran out first. */
  flush(timeoutMs: number): Promise<boolean>
  /** Runs `work` with tracing suppressed (the monitoring tunnel's own requests). */
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

/** Logs an unexpected failure with its digest and reports it to monitoring, once. */
export function reportServerError(request: FastifyRequest, error: unknown, message: string, context: FailureContext): void {
  request.log.error({ err: error, ...context }, message)
  request.server.errorReporter.captureException(error, {
    ...context,
    requestId: String(request.id),
    method: request.method,
    path: request.url.split('?')[0]!,
    clientAddress: request.ip,
  })
}
