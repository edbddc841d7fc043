/**
 * Deferred data (docs/guide/deferred-data.md): top-level fields a loader returns as
 * promises follow in the same answer when they settle. Both sides share these shapes.
 */

export interface DeferredRef {
  /** Absent: the page's data. */
  readonly layout?: string
  readonly key: string
}

/** A failure carries the digest of the log line; a message only for the framework's own (a part that never arrived). */
export type DeferredOutcome = DeferredRef &
  ({ readonly value: unknown } | { readonly error: { readonly digest?: string; readonly message?: string } })

/** `self.__deferred.push(outcome)` in the streamed HTML. */
export const DEFERRED_GLOBAL = '__deferred'

/** One JSON value per line, the payload first. */
export const DEFERRED_DATA_TYPE = 'application/x-ndjson'

export type DeferredKeys<Data> = Data extends object ? { [K in keyof Data]: Data[K] extends PromiseLike<unknown> ? K : never }[keyof Data] : never

/** A static route's or layout's data must have none: it is rendered once and kept. */
export type WithoutDeferred<Data> = [DeferredKeys<Data>] extends [never] ? true : false

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function'
}

export function deferredKeysOf(data: unknown): string[] {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return []
  return Object.keys(data).filter((key) => isThenable((data as Record<string, unknown>)[key]))
}

export function sameRef(a: DeferredRef, b: DeferredRef): boolean {
  return a.key === b.key && a.layout === b.layout
}

/** Made in client/framework/browser/deferred-parts.ts. */
export interface DeferredDataError extends Error {
  readonly name: 'DeferredDataError'
  /** None when the part never came. */
  readonly digest: string | undefined
}

/** Told by its name: the class lives in a chunk loaded only for pages with parts. */
export function isDeferredDataError(error: unknown): error is DeferredDataError {
  return error instanceof Error && error.name === 'DeferredDataError'
}

/** What a failed part says when the server sent no words of its own (it sends a digest only). */
export const PART_NOT_LOADED = 'This part of the page could not be loaded.'

/**
 * The failure of a part that has failed already, read the way React reads a settled
 * promise (`status`, `reason`): the server's failure (`DeferredFailure`, a digest) or
 * the browser's (`DeferredDataError`); undefined while it is pending or if it arrived.
 */
export function settledFailure(part: Promise<unknown>): { readonly digest: string | undefined; readonly message: string } | undefined {
  const { status, reason } = part as Promise<unknown> & { status?: string; reason?: unknown }
  if (status !== 'rejected' || !(reason instanceof Error)) return undefined
  if (isDeferredDataError(reason)) return { digest: reason.digest, message: reason.message }
  // The server's, which the browser gets as its digest alone: the same words on both sides.
  const { digest } = reason as { digest?: unknown }
  return reason.name === 'DeferredFailure' && typeof digest === 'string' ? { digest, message: PART_NOT_LOADED } : undefined
}
