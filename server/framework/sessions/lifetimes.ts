/** A session is over once unused for `idleMs`, or older than `absoluteMs` however much it is used. */
export interface SessionLifetimes {
  readonly idleMs: number
  readonly absoluteMs: number
}

/**
 * How often a session in use has its lifetime extended when nothing else changed: so
 * reads stay reads, at the cost of ending that much before a full idle timeout.
 */
export function refreshAfterMs(lifetimes: SessionLifetimes): number {
  return Math.min(60_000, lifetimes.idleMs / 10)
}

export function remainingMs(createdAt: number, now: number, lifetimes: SessionLifetimes): number {
  return Math.min(lifetimes.idleMs, createdAt + lifetimes.absoluteMs - now)
}
