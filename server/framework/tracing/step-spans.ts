/** A span for each step of a traced request (guards, each loader, the action, the render, each deferred part). */
import type { FastifyRequest } from 'fastify'
import type { Attributes, Span, SpanKind } from '@opentelemetry/api'
import { STATUS_ERROR } from './tracing.js'

/** Undefined when the request is not traced: the callers then do nothing more. */
export function startStepSpan(request: FastifyRequest, name: string, attributes: Attributes, kind?: SpanKind): Span | undefined {
  const parent = request.traceContext
  return parent && request.server.tracing?.startChild(parent, name, attributes, kind)
}

export function endStepSpan(span: Span | undefined, error?: unknown, outcome?: string): void {
  if (!span) return
  if (outcome !== undefined) span.setAttribute('app.outcome', outcome)
  if (error !== undefined) span.setStatus({ code: STATUS_ERROR, message: error instanceof Error ? error.message : String(error) })
  span.end()
}
