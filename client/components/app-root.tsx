import { useEffect } from 'react'
import { Router, type AroundNavHandler } from 'wouter'
import { PageSourceContext, type PageSource } from '../runtime/page-source.js'
import { PageHost } from './page-host.js'
import { RootErrorBoundary } from './root-error-boundary.js'

export interface AppRootProps {
  readonly source: PageSource
  /** Server only: the request's path and search, so wouter renders that location. */
  readonly ssrPath?: string
  readonly ssrSearch?: string
  /** Browser only: loads a page's chunk and data before the URL changes. */
  readonly aroundNav?: AroundNavHandler
  /** Browser only: called once, after hydration has committed. */
  readonly onHydrated?: () => void
}

/** The whole React tree. The server and the browser render this same tree. */
export function AppRoot({ source, ssrPath, ssrSearch, aroundNav, onHydrated }: AppRootProps) {
  // Effects never run on the server, and the first one runs right after hydration.
  useEffect(() => onHydrated?.(), [onHydrated])
  return (
    <PageSourceContext.Provider value={source}>
      <Router ssrPath={ssrPath} ssrSearch={ssrSearch} aroundNav={aroundNav}>
        <RootErrorBoundary>
          <main id="main">
            <PageHost />
          </main>
        </RootErrorBoundary>
      </Router>
    </PageSourceContext.Provider>
  )
}
