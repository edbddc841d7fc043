import { useEffect } from 'react'
import { Router, type AroundNavHandler } from 'wouter'
import { NavigationContext, type AppNavigation } from './navigation-context.js'
import { PageSourceContext, type PageSource } from './page-source.js'
import { NavigationProgress, RouteAnnouncer } from './navigation-status.js'
import { PageHost } from './page-host.js'
import { LayoutsContext, type LayoutSet } from './layout-tree.js'

export interface AppRootProps {
  readonly source: PageSource
  readonly layouts?: LayoutSet | undefined
  /** Server only: the request's path and search, so wouter renders that location. */
  readonly ssrPath?: string
  readonly ssrSearch?: string
  readonly navigation?: AppNavigation
  /** Browser only, while there is no `navigation` yet: how a link navigates meanwhile. */
  readonly navigateBeforeEngine?: AroundNavHandler
  readonly onHydrated?: () => void
}

/** The server and the browser render this same tree. */
export function AppRoot({ source, layouts, ssrPath, ssrSearch, navigation, navigateBeforeEngine, onHydrated }: AppRootProps) {
  // Effects never run on the server, and the first one runs right after hydration.
  useEffect(() => onHydrated?.(), [onHydrated])
  return (
    <PageSourceContext.Provider value={source}>
      <LayoutsContext.Provider value={layouts ?? null}>
        <NavigationContext.Provider value={navigation ?? null}>
          <Router ssrPath={ssrPath} ssrSearch={ssrSearch} aroundNav={navigation?.aroundNav ?? navigateBeforeEngine}>
            <NavigationProgress />
            <PageHost />
            <RouteAnnouncer />
          </Router>
        </NavigationContext.Provider>
      </LayoutsContext.Provider>
    </PageSourceContext.Provider>
  )
}
