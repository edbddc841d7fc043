/**
 * How long sessions last: once unused for the idle timeout, or older than the absolute
 * one however much it is used, a session is over, in every mode.
 */

/** How long sessions last, in milliseconds. */
export interface SessionLifetimes {
  /** Unused for this long, a session is over. */
  readonly idleMs: number
  /** This old, a session is over however much it is used. */
  readonly absoluteMs: number
}

/**
 * How long a session is used before its lifetime is extended (its cookie sealed again,
 * its record's TTL set again) when nothing else changed: at most once a minute, or every
 * tenth of the idle timeout when that is shorter. Reads stay reads; a session may end
 * that much before a full idle timeout after its last use.
 */
export function refreshAfterMs(lifetimes: SessionLifetimes): number {
  return Math.min(60_000, lifetimes.idleMs / 10)
}

/** What is left of a session's lifetime at `now`: the idle timeout, or less where the absolute one comes first. */
export function remainingMs(createdAt: number, now: number, lifetimes: SessionLifetimes): number {
  return Math.min(lifetimes.idleMs, createdAt + lifetimes.absoluteMs - now)
}
