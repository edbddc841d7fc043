/**
 * What the React tree asks of the browser's navigation, and the context that carries
 * it. The browser's navigation engine (client/framework/browser/navigation-engine.ts) implements
 * it; on the server there is none (null), and every component works without it.
 */
import { createContext, useContext } from 'react'
import type { AroundNavHandler } from 'wouter'
import type { Changed } from '../../../shared/framework/actions.js'
import type { ScreenPayload } from '../../../shared/framework/page-payload.js'
import type { PrefetchMode } from '../../../shared/framework/route-table.js'

export interface NavigationState {
  /** A navigation has been loading for longer than the slow threshold (150 ms). */
  readonly slow: boolean
  /** What the live region reads out: the title of the page navigated to. */
  readonly announcement: string
}

/** Why a link asks for a prefetch: it came into view, or the user showed intent. */
export type PrefetchReason = 'viewport' | 'intent'

export interface AppNavigation {
  /** wouter's hook around every navigation a link or `navigate()` starts. */
  readonly aroundNav: AroundNavHandler
  subscribe(onChange: () => void): () => void
  getState(): NavigationState
  /** Asks for `href` to be loaded ahead of a click. */
  prefetch(href: string, reason: PrefetchReason): void
  /** When links to `href` prefetch, as its route declares (by default: a static page in view, a dynamic one on intent). */
  prefetchModeOf(href: string): PrefetchMode
  /** Prefetches `href` while `element` is near the viewport; the returned function stops. */
  observeLink(element: Element, href: string): () => void
  /**
   * After a server action: marks the cached pages `changed` reaches stale (all when it
   * names nothing) and loads the page on screen again if it is one; resolves once the
   * page on screen shows what the server has now.
   */
  revalidate(changed?: Changed): Promise<void>
  /** Marks the cached pages `changed` reaches stale, the page on screen too. */
  invalidate(changed?: Changed): void
  /** How many navigations have begun (links, `navigate()`, Back and Forward): a form sent before compares it to know the user moved on. */
  readonly navigations: number
  /** The page host shows the page of `key` now. */
  pageShown(key: string, title: string, kind: ScreenPayload['kind']): void
}

/** The browser's navigation; null while rendering on the server. */
export const NavigationContext = createContext<AppNavigation | null>(null)

/**
 * The app's handle on navigation: `refresh()` loads the current page's data again
 * (every other cached page is then stale: asked for again when next shown) and
 * resolves once it is on screen; `prefetch(href)` loads a page ahead of time. Both do
 * nothing on the server.
 */
export function useNavigation(): { refresh(): Promise<void>; prefetch(href: string): void } {
  const engine = useContext(NavigationContext)
  return {
    refresh: () => engine?.revalidate() ?? Promise.resolve(),
    prefetch: (href) => engine?.prefetch(href, 'intent'),
  }
}
