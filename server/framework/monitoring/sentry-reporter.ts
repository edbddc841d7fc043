/** The error reporter backed by @sentry/node; imported only when SENTRY_DSN is set. */
import type { ErrorReporter } from './error-reporter.js'

// Not a static import: hoisted to the top of the bundle that inlines this module, it would load
// @sentry/node (a second and a half of CPU) at every start.
const Sentry = await import('@sentry/node')

export const sentryReporter: ErrorReporter = {
  captureException(error, context) {
    Sentry.withScope((scope) => {
      scope.setTag('digest', context.digest)
      scope.setTag('request_id', context.requestId)
      if (context.routeId) scope.setTag('route', context.routeId)
      if (context.layoutId) scope.setTag('layout', context.layoutId)
      if (context.action) scope.setTag('action', context.action)
      if (context.part) scope.setTag('deferred_part', context.part)
      scope.setContext('request', { method: context.method, path: context.path })
      scope.setUser({ ip_address: context.clientAddress })
      if (context.traceId) {
        // The event's trace is the request's OpenTelemetry trace: one id from the alert to the trace to the error.
        scope.setPropagationContext({
          traceId: context.traceId,
          sampleRand: Math.random(),
          ...(context.spanId ? { parentSpanId: context.spanId } : {}),
        })
        scope.setTag('trace_id', context.traceId)
      }
      Sentry.captureException(error)
    })
  },
  flush: (timeoutMs) => Sentry.flush(timeoutMs),
  untraced: (work) => Sentry.suppressTracing(work),
}
