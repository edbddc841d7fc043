/**
 * Keeps browser errors until the monitoring SDK, loaded after hydration, connects
 * (docs/architecture.md, "Monitoring"). Listening stops in the same task the SDK's own
 * handlers take over, so none is lost and none is sent twice.
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

/** Call first thing. */
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

export function connectErrorSink(next: ErrorSink): void {
  sink = next
  window.removeEventListener('error', onError)
  window.removeEventListener('unhandledrejection', onRejection)
  listening = false
  for (const entry of pending.splice(0)) next(entry.error, entry)
}
