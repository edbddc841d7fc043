/**
 * Keeps browser errors until the monitoring SDK is there (docs/architecture.md, "Monitoring"). The SDK loads
 * after hydration, in its own chunk; errors thrown before that (while the page starts,
 * or caught by the root error boundary) wait here, at most MAX_EARLY of them, and are
 * handed over when it connects. From then on the SDK's own global handlers see window
 * errors; this module stops listening in the same task, so none is lost and none is
 * sent twice. Nothing here runs when the page has no monitoring config.
 */

export type ErrorSink = (error: unknown, context: { readonly mechanism: string; readonly componentStack?: string }) => void

interface Pending {
  readonly error: unknown
  readonly mechanism: string
  readonly componentStack?: string
}

const MAX_EARLY = 20

let sink: ErrorSink | undefined
let listening = false
const pending: Pending[] = []

function keep(entry: Pending): void {
  if (sink) sink(entry.error, entry)
  else if (pending.length < MAX_EARLY) pending.push(entry)
}

function onError(event: ErrorEvent): void {
  keep({ error: event.error ?? event.message, mechanism: 'onerror' })
}

function onRejection(event: PromiseRejectionEvent): void {
  keep({ error: event.reason, mechanism: 'onunhandledrejection' })
}

/** Starts keeping window errors and unhandled rejections (call first thing). */
export function listenForEarlyErrors(): void {
  if (listening) return
  listening = true
  window.addEventListener('error', onError)
  window.addEventListener('unhandledrejection', onRejection)
}

/** An error the root error boundary caught: React does not let it reach window. */
export function reportCaughtError(error: unknown, componentStack?: string): void {
  if (!listening && !sink) return // no monitoring on this page
  keep({ error, mechanism: 'react.error-boundary', ...(componentStack ? { componentStack } : {}) })
}

/**
 * The SDK is up (its global handlers installed): send what waited, and leave window
 * errors to it from now on.
 */
export function connectErrorSink(next: ErrorSink): void {
  sink = next
  window.removeEventListener('error', onError)
  window.removeEventListener('unhandledrejection', onRejection)
  listening = false
  for (const entry of pending.splice(0)) next(entry.error, entry)
}
