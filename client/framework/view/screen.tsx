/**
 * What the page host puts on screen for one page: the layouts around it, each one's
 * error boundary, `<main>`, and the page, or the not-found or error screen in the
 * nearest layout that did not fail (docs/architecture.md, "Layouts").
 *
 * Every level of the tree has the same element types whatever the page, so React keeps
 * a layout mounted (its state, a half-typed filter) across a navigation between two
 * pages in it; a page in another layout replaces only what differs.
 */
import { createContext, useContext, useEffect, type ReactNode } from 'react'
import { MAIN_ELEMENT_ID } from '../../../shared/framework/constants.js'
import type { ErrorPayload, ScreenPayload } from '../../../shared/framework/page-payload.js'
import type { AnyLayout, Router } from '../../../shared/framework/route-table.js'
import type { AnyLayoutModules, Boundaries, LayoutModule, PageModule } from '../page-module.js'
import { ActionStateContext } from './action-state.js'
import { PageMatchContext } from './page-match.js'
import { showDevError } from './dev-overlay.js'
import type {} from '../browser/import-meta.js' // `import.meta.env`'s type
import { ErrorPage } from './error-page.js'
import { NotFoundPage } from './not-found-page.js'
import type { ReadyPage } from './page-source.js'
import { RouteErrorBoundary } from './route-error-boundary.js'

/** The application's layouts: the table's chains and each layout's client module. */
export interface LayoutSet {
  readonly router: Pick<Router<any, any>, 'layoutsOf' | 'routes'>
  readonly modules: AnyLayoutModules
}

export const LayoutsContext = createContext<LayoutSet | null>(null)

/** One layout on screen, with its module. */
export interface Frame {
  readonly layout: AnyLayout
  readonly module: LayoutModule
}

/**
 * The layouts a screen is rendered in, the root first: all of its route's, or, when a
 * layout's loader failed, those above it.
 */
export function framesOf(payload: ScreenPayload, layouts: LayoutSet | null): Frame[] {
  if (!layouts) return []
  const frames: Frame[] = []
  for (const layout of layouts.router.layoutsOf(payload.routeId)) {
    if (payload.kind !== 'page' && layout.id === payload.failedLayout) break
    const module = layouts.modules[layout.id]
    if (!module) throw new Error(`Layout "${layout.id}" has no client module`)
    frames.push({ layout, module })
  }
  return frames
}

/** The nearest boundary component, searching from the innermost owner out. */
function nearest<K extends keyof Boundaries>(owners: ReadonlyArray<Boundaries | undefined>, kind: K): Boundaries[K] {
  for (let i = owners.length - 1; i >= 0; i--) {
    const found = owners[i]?.[kind]
    if (found) return found
  }
  return undefined
}

export function Screen({ page, resetKey }: { readonly page: ReadyPage; readonly resetKey: string }) {
  const frames = framesOf(page.payload, useContext(LayoutsContext))
  // The route's own boundaries count only when its page is what failed (or rendered).
  const routeModule = page.payload.kind === 'page' || page.payload.failedLayout === undefined ? page.module : undefined
  const layouts: ReadonlyArray<Boundaries | undefined> = frames.map((frame) => frame.module)

  let content: ReactNode = (
    <RouteErrorBoundary resetKey={resetKey} Fallback={nearest([...layouts, routeModule], 'ErrorBoundary')}>
      <Content page={page} owners={[...layouts, routeModule]} />
    </RouteErrorBoundary>
  )
  // Inside out: each layout gets its data and, around what is inside it, the boundary
  // of the layouts above it; the root's children go into `<main>`.
  for (let i = frames.length - 1; i >= 0; i--) {
    const { layout, module } = frames[i]!
    const inner = i === 0 ? <Main>{content}</Main> : content
    content = (
      <RouteErrorBoundary resetKey={resetKey} Fallback={nearest(layouts.slice(0, i), 'ErrorBoundary')}>
        <module.Component data={page.payload.layouts?.[layout.id] as never}>{inner}</module.Component>
      </RouteErrorBoundary>
    )
  }
  // A refused form's state (no JavaScript: the page again, with errors) reaches every
  // level: a layout's form shows its errors as a page's does.
  const { payload } = page
  return (
    <PageMatchContext.Provider value={payload}>
      <ActionStateContext.Provider value={(payload.kind === 'page' && payload.action) || null}>
        {frames.length === 0 ? <Main>{content}</Main> : content}
      </ActionStateContext.Provider>
    </PageMatchContext.Provider>
  )
}

function Main({ children }: { readonly children: ReactNode }) {
  return (
    <main id={MAIN_ELEMENT_ID} tabIndex={-1}>
      {children}
    </main>
  )
}

/** The page, or the not-found or error screen from the nearest owner that declares one. */
function Content({ page, owners }: { readonly page: ReadyPage; readonly owners: ReadonlyArray<Boundaries | undefined> }) {
  const { payload, module } = page
  switch (payload.kind) {
    case 'page': {
      if (!module) throw new Error(`Page module of route "${payload.routeId}" is not loaded`)
      const { Component } = module as PageModule
      // Another value of the route's params is another page: its state starts afresh (a
      // counter on one item list is not the next list's), as Next.js remounts a page whose
      // dynamic segment changed. The query is the same page's: its state stays.
      return <Component key={JSON.stringify(payload.params)} data={payload.data as never} params={payload.params as never} />
    }
    case 'not-found': {
      const NotFound = nearest(owners, 'NotFound')
      return NotFound ? <NotFound /> : <NotFoundPage />
    }
    case 'error': {
      const Fallback = nearest(owners, 'ErrorBoundary')
      if (!Fallback) return <ErrorPage error={payload} />
      const { status, digest, message } = payload
      return (
        <>
          <DevErrorOverlay error={payload} />
          <Fallback failure={{ kind: 'loader', status, digest, message }} />
        </>
      )
    }
  }
}

/** `npm run dev`: a loader's real error in Vite's overlay, whichever component shows the failure. */
function DevErrorOverlay({ error }: { readonly error: ErrorPayload }) {
  useEffect(() => {
    // Only `npm run dev` sends one; in the build the condition is `false` and the overlay's code is left out.
    if (import.meta.env.DEV && error.devError) showDevError(error.devError)
  }, [error])
  return null
}
