/**
 * The navigation state the React tree shows (client/framework/view/navigation-status.tsx): the
 * progress bar while a navigation is slow, and the live region's announcement of the
 * page arrived at. A store for `useSyncExternalStore`: listeners hear only real changes.
 */
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
