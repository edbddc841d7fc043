/**
 * How long shared caches (a CDN, a caching proxy) may keep a static route's page and page
 * data, declared in the route table: `sharedCache: { maxAge: 300, staleWhileRevalidate: 60 }`.
 * Only a static route may say it (the type checker, else the start, refuses another): a
 * dynamic one may read a session or a guard, and a shared cache would give one visitor's
 * page to the next.
 */
export interface SharedCacheDecl {
  /** Seconds a shared cache serves it without asking (`s-maxage`). */
  readonly maxAge: number
  /** Seconds past that it may still serve it while it fetches a fresh copy. */
  readonly staleWhileRevalidate?: number
}

/** A year: longer is no longer "a while" for any cache. */
const MOST_SECONDS = 31_536_000

/** Why the declaration cannot be used, or undefined. */
export function sharedCacheProblem(decl: SharedCacheDecl): string | undefined {
  for (const [name, value] of [
    ['maxAge', decl.maxAge],
    ['staleWhileRevalidate', decl.staleWhileRevalidate ?? 0],
  ] as const) {
    if (!Number.isInteger(value) || value < 0 || value > MOST_SECONDS) return `${name} must be whole seconds from 0 to ${MOST_SECONDS}, got ${value}`
  }
  return undefined
}
