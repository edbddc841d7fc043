/**
 * Deferred data (docs/guide/deferred-data.md): a loader may return some top-level fields
 * of its data as promises. The page renders at once with those parts pending (React's
 * `use()` inside `<Suspense>`, or `<Await>`), and each part follows in the same answer
 * when it settles: a script in the streamed HTML, a line of the streamed page data.
 * Both sides share the shapes here.
 */

/** One deferred part: a top-level key of the page's data, or of a layout's. */
export interface DeferredRef {
  /** The layout whose data holds it; absent: the page's. */
  readonly layout?: string
  readonly key: string
}

/**
 * How a part settled, as the browser receives it: its value, or its failure (the
 * digest of the log line and report; a message only for the framework's own, such as
 * a part that did not arrive in time).
 */
export type DeferredOutcome = DeferredRef &
  ({ readonly value: unknown } | { readonly error: { readonly digest?: string; readonly message?: string } })

/** Where the streamed HTML puts each part's outcome for the browser: `self.__deferred.push(outcome)`. */
export const DEFERRED_GLOBAL = '__deferred'

/** The media type of a page-data answer with deferred parts: one JSON value per line, the payload first. */
export const DEFERRED_DATA_TYPE = 'application/x-ndjson'

/** The keys of `Data` whose values are promises: its deferred parts. */
export type DeferredKeys<Data> = Data extends object ? { [K in keyof Data]: Data[K] extends PromiseLike<unknown> ? K : never }[keyof Data] : never

/** True when `Data` has no deferred part: what a static route's or layout's data must be. */
export type WithoutDeferred<Data> = [DeferredKeys<Data>] extends [never] ? true : false

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function'
}

/** The deferred parts of one loader's data: its top-level fields that are promises. */
export function deferredKeysOf(data: unknown): string[] {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return []
  return Object.keys(data).filter((key) => isThenable((data as Record<string, unknown>)[key]))
}

/** True when two refs name the same part. */
export function sameRef(a: DeferredRef, b: DeferredRef): boolean {
  return a.key === b.key && a.layout === b.layout
}

/** What a browser component meets when a deferred part failed (made in client/framework/browser/deferred-parts.ts). */
export interface DeferredDataError extends Error {
  readonly name: 'DeferredDataError'
  /** The digest of the server's log line and report; none when the part never came. */
  readonly digest: string | undefined
}

/** True for a `DeferredDataError`, told by its name: the class lives in a chunk loaded only for pages with parts. */
export function isDeferredDataError(error: unknown): error is DeferredDataError {
  return error instanceof Error && error.name === 'DeferredDataError'
}
