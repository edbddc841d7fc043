/**
 * The browser's side of deferred data (docs/guide/deferred-data.md). Each part's promise
 * says how it settled the way React's `use()` reads it, so a part already there renders
 * at once. Loaded only for a page that has parts.
 */
import type { DeferredOutcome, DeferredRef, DeferredDataError as PartFailure } from '../../../shared/framework/deferred.js'
import { DEFERRED_GLOBAL, PART_NOT_LOADED } from '../../../shared/framework/deferred.js'
import type { RenderPayload } from '../../../shared/framework/page-payload.js'

/** Failed on the server (its digest finds the report, made once there) or on the way. */
class DeferredDataError extends Error implements PartFailure {
  override readonly name = 'DeferredDataError'
  readonly digest: string | undefined
  constructor(failure: { readonly digest?: string | undefined; readonly message?: string | undefined }) {
    super(failure.message ?? PART_NOT_LOADED)
    this.digest = failure.digest
  }
}

interface Part {
  readonly promise: Promise<unknown>
  resolve(value: unknown): void
  reject(error: DeferredDataError): void
}

export interface DeferredParts<P extends RenderPayload> {
  readonly payload: P
  settle(outcome: DeferredOutcome): void
  /** The response ended: every part still pending fails with `message`. */
  end(message: string): void
}

const refId = (ref: DeferredRef) => `${ref.layout ?? ''}\u0000${ref.key}`

export function deferredParts<P extends RenderPayload>(payload: P): DeferredParts<P> {
  const refs = payload.deferred ?? []
  const pending = new Map<string, Part>()
  if (refs.length === 0) return { payload, settle: () => {}, end: () => {} }
  let data = payload.kind === 'page' ? { ...(payload.data as Record<string, unknown>) } : undefined
  const layouts: Record<string, Record<string, unknown>> = {}
  for (const ref of refs) {
    const part = newPart()
    pending.set(refId(ref), part)
    if (ref.layout === undefined) {
      data ??= {}
      data[ref.key] = part.promise
    } else {
      layouts[ref.layout] ??= { ...(payload.layouts?.[ref.layout] as Record<string, unknown> | undefined) }
      layouts[ref.layout]![ref.key] = part.promise
    }
  }
  const withParts = { ...payload, ...(payload.kind === 'page' ? { data } : {}), layouts: { ...payload.layouts, ...layouts } }
  return {
    payload: withParts,
    settle(outcome) {
      const part = pending.get(refId(outcome))
      if (!part) return
      pending.delete(refId(outcome))
      if ('error' in outcome) part.reject(new DeferredDataError(outcome.error))
      else part.resolve(outcome.value)
    },
    end(message) {
      for (const part of pending.values()) part.reject(new DeferredDataError({ message }))
      pending.clear()
    },
  }
}

function newPart(): Part {
  type Tracked = Promise<unknown> & { status: string; value?: unknown; reason?: unknown }
  let resolve!: (value: unknown) => void
  let reject!: (error: DeferredDataError) => void
  const promise = new Promise<unknown>((ok, fail) => {
    resolve = ok
    reject = fail
  }) as Tracked
  promise.status = 'pending'
  // A part nothing on screen reads must not become an unhandled rejection.
  promise.catch(() => {})
  return {
    promise,
    resolve(value) {
      Object.assign(promise, { status: 'fulfilled', value })
      resolve(value)
    },
    reject(error) {
      Object.assign(promise, { status: 'rejected', reason: error })
      reject(error)
    },
  }
}

/** A streamed page-data response: its first line, the payload; then its parts, once `receive` has the payload. */
export interface StreamedParts {
  readonly payload: Promise<unknown>
  receive<P extends RenderPayload>(payload: P): P
  /** The payload is not used (another build's): the rest of the response is not waited for. */
  cancel(): void
}

export function streamedParts(body: ReadableStream<Uint8Array>): StreamedParts {
  const reader = body.getReader()
  // Cancelling the reader ends a read under way too: the lines end, the connection is let go.
  const cancel = () => void reader.cancel().catch(() => {})
  const lines = linesOf(reader)
  return {
    payload: lines.next().then((first) => (first.done ? undefined : JSON.parse(first.value))),
    receive(payload) {
      const parts = deferredParts(payload)
      void (async () => {
        try {
          for await (const line of lines) parts.settle(JSON.parse(line) as DeferredOutcome)
        } catch {
          // The connection broke, or a line is not JSON: what has not come fails below, in its boundary.
          cancel()
        }
        parts.end('This part of the page did not arrive. Check your connection and try again.')
      })()
      return parts.payload
    },
    cancel,
  }
}

async function* linesOf(reader: ReadableStreamDefaultReader<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder()
  let buffered = ''
  for (;;) {
    const { done, value } = await reader.read()
    buffered += done ? decoder.decode() : decoder.decode(value, { stream: true })
    let end: number
    while ((end = buffered.indexOf('\n')) !== -1) {
      const line = buffered.slice(0, end)
      buffered = buffered.slice(end + 1)
      if (line.trim() !== '') yield line
    }
    if (done) return
  }
}

/** Outcomes are scripts in the streamed document pushing to DEFERRED_GLOBAL; a part not there once the document is whole fails. */
export function receiveDocumentParts<P extends RenderPayload>(payload: P): P {
  const parts = deferredParts(payload)
  const settle = (outcome: DeferredOutcome) => parts.settle(outcome)
  const global = window as unknown as Record<string, { push(outcome: DeferredOutcome): void } | DeferredOutcome[] | undefined>
  const arrived = global[DEFERRED_GLOBAL]
  if (Array.isArray(arrived)) arrived.forEach(settle)
  global[DEFERRED_GLOBAL] = { push: settle }
  const ended = () => parts.end('This part of the page did not arrive. Reload the page to try again.')
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', ended, { once: true })
  else ended()
  return parts.payload
}
