/** One navigation counts at a time (a newer one supersedes the older); each has a deadline and a slow threshold. */
import type { LoadResult } from './load-page.js'

export const DEADLINE_PASSED = 'timed out'

export interface Timers {
  set(run: () => void, ms: number): unknown
  clear(handle: unknown): void
}

const realTimers: Timers = {
  set: (run, ms) => setTimeout(run, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
}

export interface NavigationLoadingOptions {
  readonly load: (key: string) => Promise<LoadResult>
  readonly timeoutMs: number
  readonly slowMs: number
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

  begin(): number {
    return ++this.#latest
  }

  get started(): number {
    return this.#latest
  }

  isCurrent(navigationId: number): boolean {
    return navigationId === this.#latest
  }

  /** Undefined once a newer navigation superseded this one. */
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
