/** The progress bar and the announcement, for `useSyncExternalStore`: listeners hear only real changes. */
import type { NavigationState } from '../view/navigation-context.js'

export class NavigationStatusStore {
  #state: NavigationState = { slow: false, announcement: '' }
  readonly #listeners = new Set<() => void>()

  subscribe = (onChange: () => void): (() => void) => {
    this.#listeners.add(onChange)
    return () => this.#listeners.delete(onChange)
  }

  getState = (): NavigationState => this.#state

  setSlow(slow: boolean): void {
    this.#set({ ...this.#state, slow })
  }

  announce(title: string): void {
    this.#set({ ...this.#state, announcement: title })
  }

  #set(next: NavigationState): void {
    if (next.slow === this.#state.slow && next.announcement === this.#state.announcement) return
    this.#state = next
    for (const listener of this.#listeners) listener()
  }
}
