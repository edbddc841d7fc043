import { useEffect, type ReactNode } from 'react'
import type { RootLayout } from '../page-module.js'
import { Router } from 'wouter'
import { MAIN_ELEMENT_ID } from '../../shared/constants.js'
import { NavigationContext, type AppNavigation } from './navigation-context.js'
import { PageSourceContext, type PageSource } from './page-source.js'
import { NavigationProgress, RouteAnnouncer } from './navigation-status.js'
import { PageHost, useLocationKey } from './page-host.js'
import { RootErrorBoundary } from './root-error-boundary.js'

export interface AppRootProps {
  readonly source: PageSource
  /** The product's root layout around every page; none: the page alone. */
  readonly layout?: RootLayout | undefined
  /** Server only: the request's path and search, so wouter renders that location. */
  readonly ssrPath?: string
  readonly ssrSearch?: string
  /** Browser only: loads pages ahead of and during navigation. */
  readonly navigation?: AppNavigation
  /** Browser only: called once, after hydration has committed. */
  readonly onHydrated?: () => void
}

/** The root error boundary, reset by a move to another location. */
function PageBoundary({ children }: { readonly children: ReactNode }) {
  return <RootErrorBoundary resetKey={useLocationKey()}>{children}</RootErrorBoundary>
}

function Bare({ children }: { readonly children: ReactNode }) {
  return <>{children}</>
}

/** The whole React tree. The server and the browser render this same tree. */
export function AppRoot({ source, layout: Layout = Bare, ssrPath, ssrSearch, navigation, onHydrated }: AppRootProps) {
  // Effects never run on the server, and the first one runs right after hydration.
  useEffect(() => onHydrated?.(), [onHydrated])
  return (
    <PageSourceContext.Provider value={source}>
      <NavigationContext.Provider value={navigation ?? null}>
        <Router ssrPath={ssrPath} ssrSearch={ssrSearch} aroundNav={navigation?.aroundNav}>
          <NavigationProgress />
          <Layout>
            <PageBoundary>
              <main id={MAIN_ELEMENT_ID} tabIndex={-1}>
                <PageHost />
              </main>
            </PageBoundary>
          </Layout>
          <RouteAnnouncer />
        </Router>
      </NavigationContext.Provider>
    </PageSourceContext.Provider>
  )
}
