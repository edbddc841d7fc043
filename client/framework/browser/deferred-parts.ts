/**
 * The browser's side of deferred data (docs/guide/deferred-data.md): a payload's parts
 * become promises in its data, as the loader returned them, settled when their outcomes
 * arrive (scripts in the streamed document, lines of the page-data answer). Each says
 * how it settled the way React's `use()` reads it, so a part already there renders at
 * once instead of suspending.
 */
import { DeferredDataError, type DeferredOutcome, type DeferredRef } from '../../../shared/framework/deferred.js'
import type { ScreenPayload } from '../../../shared/framework/page-payload.js'

interface Part {
  readonly promise: Promise<unknown>
  resolve(value: unknown): void
  reject(error: DeferredDataError): void
}

export interface DeferredParts<P extends ScreenPayload> {
  /** The payload with a promise in place of each part. */
  readonly payload: P
  /** One part's outcome arrived. */
  settle(outcome: DeferredOutcome): void
  /** The answer ended: every part still pending fails with `message`. */
  end(message: string): void
}

const refId = (ref: DeferredRef) => `${ref.layout ?? ''}\u0000${ref.key}`

export function deferredParts<P extends ScreenPayload>(payload: P): DeferredParts<P> {
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
