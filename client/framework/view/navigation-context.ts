/**
 * What the React tree asks of the browser's navigation, and the context that carries
 * it. The browser's navigation engine (client/framework/browser/navigation-engine.ts) implements
 * it; on the server there is none (null), and every component works without it.
 */
import { createContext, useContext } from 'react'
import type { AroundNavHandler } from 'wouter'
import type { ScreenPayload } from '../../../shared/framework/page-payload.js'

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
  /** Prefetches `href` while `element` is near the viewport; the returned function stops. */
  observeLink(element: Element, href: string): () => void
  /** Forgets every cached page and loads the current one again. */
  refresh(): void
  /** Forgets every cached page. */
  clearCache(): void
  /** How many navigations have begun (links, `navigate()`, Back and Forward): a form sent before compares it to know the user moved on. */
  readonly navigations: number
  /** The page host shows the page of `key` now. */
  pageShown(key: string, title: string, kind: ScreenPayload['kind']): void
}

/** The browser's navigation; null while rendering on the server. */
export const NavigationContext = createContext<AppNavigation | null>(null)

/**
 * The app's handle on navigation: `refresh()` reloads the current page's data (and
 * forgets every cached page), `prefetch(href)` loads a page ahead of time. Both do
 * nothing on the server.
 */
export function useNavigation(): { refresh(): void; prefetch(href: string): void } {
  const engine = useContext(NavigationContext)
  return {
    refresh: () => engine?.refresh(),
    prefetch: (href) => engine?.prefetch(href, 'intent'),
  }
}
