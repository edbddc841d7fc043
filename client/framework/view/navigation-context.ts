/** What the React tree asks of the browser's navigation; on the server there is none (null). */
import { createContext, useContext } from 'react'
import type { AroundNavHandler } from 'wouter'
import type { ChangedOnWire } from '../../../shared/framework/actions.js'
import type { PrefetchMode } from '../../../shared/framework/route-table.js'
import type { LayoutSet } from './layout-tree.js'
import type { ReadyPage } from './page-source.js'

export interface NavigationState {
  /** Loading for longer than SLOW_NAVIGATION_MS. */
  readonly slow: boolean
  readonly announcement: string
}

export type PrefetchReason = 'viewport' | 'intent'

export interface AppNavigation {
  readonly aroundNav: AroundNavHandler
  subscribe(onChange: () => void): () => void
  getState(): NavigationState
  prefetch(href: string, reason: PrefetchReason): void
  prefetchModeOf(href: string): PrefetchMode
  observeLink(element: Element, href: string): () => void
  /** All cached pages are stale when `changed` names nothing; resolves once the page on screen shows what the server has now. */
  revalidate(changed?: ChangedOnWire): Promise<void>
  invalidate(changed?: ChangedOnWire): void
  /** A form compares it from before sending to know the user moved on. */
  readonly navigations: number
  /** Writes the page's title and head, then restores scroll and announces it: the engine's chunk holds the head code, which only a navigation needs. */
  pageShown(key: string, page: ReadyPage, layouts: LayoutSet | null): void
}

export const NavigationContext = createContext<AppNavigation | null>(null)

/** `refresh()` marks every other cached page stale too. Both do nothing on the server. */
export function useNavigation(): { refresh(): Promise<void>; prefetch(href: string): void } {
  const engine = useContext(NavigationContext)
  return {
    refresh: () => engine?.revalidate() ?? Promise.resolve(),
    prefetch: (href) => engine?.prefetch(href, 'intent'),
  }
}
