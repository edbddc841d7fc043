/**
 * The error reporter backed by @sentry/node (initialised by server/framework/instrument.ts before
 * the app was imported). Imported only when SENTRY_DSN is set.
 */
import type { ErrorReporter } from './error-reporter.js'

// Loaded here, not by a static import: the server bundle inlines this module, and a
// static import of a package the bundle leaves out is hoisted to the bundle's top,
// where it would load @sentry/node (a second and a half of CPU) at every start.
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
      Sentry.captureException(error)
    })
  },
  flush: (timeoutMs) => Sentry.flush(timeoutMs),
  untraced: (work) => Sentry.suppressTracing(work),
}
