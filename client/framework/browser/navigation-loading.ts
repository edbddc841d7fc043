/**
 * Loading a navigation's page: one navigation counts at a time (a newer one supersedes
 * the older, whose result is then dropped), each has a deadline (past it, the result is
 * a reload: the page loads as a document instead), and one still loading after the
 * slow threshold is reported, so the progress bar can show.
 */
import type { LoadResult } from './load-page.js'

/** The reason of the reload a navigation gets when its deadline passes. */
export const DEADLINE_PASSED = 'timed out'

/** setTimeout and clearTimeout, replaceable in tests. */
export interface Timers {
  set(run: () => void, ms: number): unknown
  clear(handle: unknown): void
}

const realTimers: Timers = {
  set: (run, ms) => setTimeout(run, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
}

export interface NavigationLoadingOptions {
  /** Loads a location's page (the page store's `load`, shared with prefetching). */
  readonly load: (key: string) => Promise<LoadResult>
  /** Past this, a navigation's result is `{ kind: 'reload' }`. */
  readonly timeoutMs: number
  /** A navigation still loading after this long is slow. */
  readonly slowMs: number
  /** Told when the current navigation has become slow. */
  readonly onSlow: () => void
  readonly timers?: Timers
}

export class NavigationLoading {
  #latest = 0
  readonly #options: NavigationLoadingOptions
  readonly #timers: Timers

  constructor(options: NavigationLoadingOptions) {
    this.#options = options
    this.#timers = options.timers ?? realTimers
  }

  /** Starts a navigation, superseding any under way; returns its id. */
  begin(): number {
    return ++this.#latest
  }

  /** How many navigations have begun or superseded the one before. */
  get started(): number {
    return this.#latest
  }

  isCurrent(navigationId: number): boolean {
    return navigationId === this.#latest
  }

  /** Loads `key` for the navigation `navigationId`: its result, or undefined once a newer navigation superseded it. */
  async load(key: string, navigationId: number): Promise<LoadResult | undefined> {
    const { timeoutMs, slowMs, onSlow } = this.#options
    const slowTimer = this.#timers.set(() => {
      if (this.isCurrent(navigationId)) onSlow()
    }, slowMs)
    let deadline: unknown
    const timedOut = new Promise<LoadResult>((resolve) => {
      deadline = this.#timers.set(() => resolve({ kind: 'reload', reason: DEADLINE_PASSED }), timeoutMs)
    })
    const result = await Promise.race([this.#options.load(key), timedOut])
    this.#timers.clear(slowTimer)
    this.#timers.clear(deadline)
    return this.isCurrent(navigationId) ? result : undefined
  }
}
