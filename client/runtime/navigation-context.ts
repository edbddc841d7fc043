import { createContext, useContext } from 'react'
import type { NavigationEngine } from './navigation-engine.js'

/** The browser's navigation engine; null while rendering on the server. */
export const NavigationContext = createContext<NavigationEngine | null>(null)

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
