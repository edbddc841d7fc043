/**
 * What the framework asks of tracing (./tracer.ts, loaded only when it is configured):
 * types alone here, so modules on every request's path import this and load nothing.
 */
import type { IncomingMessage } from 'node:http'
import type { Attributes, Context, Span, SpanKind } from '@opentelemetry/api'

export interface Tracing {
  /** The request's span, its parent the caller's `traceparent` when a trusted proxy sent it. */
  startRequest(raw: IncomingMessage, trustedPeer: boolean): { readonly span: Span; readonly context: Context }
  startChild(parent: Context, name: string, attributes: Attributes, kind?: SpanKind): Span
  run<T>(spanContext: Context, work: () => T): T
  activeContext(): Context
  /** `traceparent` (and `tracestate`) of the active span, for an outgoing request. */
  injectInto(headers: Record<string, string>): void
  shutdown(): Promise<void>
  forceFlush(): Promise<void>
}

/** `SpanStatusCode.ERROR` and `SpanKind`'s values, without loading the API. */
export const STATUS_ERROR = 2
export const KIND_CLIENT = 2
