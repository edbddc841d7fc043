/**
 * Prefetches a few at a time (docs/architecture.md, "Navigation"), first in, first out;
 * a link the user shows intent for (hover, focus, touch) goes to the front.
 */
import { MAX_PREFETCH_IN_FLIGHT } from '../../../shared/framework/constants.js'

export interface PrefetchQueueOptions {
  /** The same function navigation uses, so the two share requests. */
  readonly load: (key: string) => Promise<unknown>
  readonly isSettled: (key: string) => boolean
  readonly maxInFlight?: number
}

export class PrefetchQueue {
  readonly #waiting: string[] = []
  readonly #running = new Set<string>()
  readonly #options: PrefetchQueueOptions
  readonly #max: number

  constructor(options: PrefetchQueueOptions) {
    this.#options = options
    this.#max = options.maxInFlight ?? MAX_PREFETCH_IN_FLIGHT
  }

  add(key: string, urgent = false): void {
    if (this.#running.has(key) || this.#options.isSettled(key)) return
    const at = this.#waiting.indexOf(key)
    if (at !== -1) {
      if (!urgent) return
      this.#waiting.splice(at, 1)
    }
    if (urgent) this.#waiting.unshift(key)
    else this.#waiting.push(key)
    this.#pump()
  }

  drop(key: string): void {
    const at = this.#waiting.indexOf(key)
    if (at !== -1) this.#waiting.splice(at, 1)
  }

  get inFlight(): number {
    return this.#running.size
  }

  #pump(): void {
    while (this.#running.size < this.#max && this.#waiting.length > 0) {
      const key = this.#waiting.shift()!
      if (this.#options.isSettled(key)) continue
      this.#running.add(key)
      void this.#options
        .load(key)
        .catch(() => {}) // a failed prefetch costs nothing: navigation will try again
        .finally(() => {
          this.#running.delete(key)
          this.#pump()
        })
    }
  }
}
