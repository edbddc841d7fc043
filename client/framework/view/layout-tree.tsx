/**
 * The layouts around a page, their error boundaries, `<main>` and the page
 * (docs/architecture.md, "Layouts"). Every level has the same element types whatever
 * the page, so React keeps a layout mounted (its state) across a navigation inside it.
 */
import { createContext, useContext, useEffect, type ReactNode } from 'react'
import { MAIN_ELEMENT_ID } from '../../../shared/framework/constants.js'
import type { ErrorPayload, RenderPayload } from '../../../shared/framework/page-payload.js'
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

export interface LayoutSet {
  readonly router: Pick<Router<any, any>, 'layoutsOf' | 'routes'>
  readonly modules: AnyLayoutModules
}

export const LayoutsContext = createContext<LayoutSet | null>(null)

export interface Frame {
  readonly layout: AnyLayout
  readonly module: LayoutModule
}

/** The root first; when a layout's loader failed, only those above it. */
export function framesOf(payload: RenderPayload, layouts: LayoutSet | null): Frame[] {
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

function nearest<K extends keyof Boundaries>(owners: ReadonlyArray<Boundaries | undefined>, kind: K): Boundaries[K] {
  for (let i = owners.length - 1; i >= 0; i--) {
    const found = owners[i]?.[kind]
    if (found) return found
  }
  return undefined
}

export function LayoutTree({ page, resetKey }: { readonly page: ReadyPage; readonly resetKey: string }) {
  const frames = framesOf(page.payload, useContext(LayoutsContext))
  // The route's own boundaries count only when its page is what failed (or rendered).
  const routeModule = page.payload.kind === 'page' || page.payload.failedLayout === undefined ? page.module : undefined
  const layouts: ReadonlyArray<Boundaries | undefined> = frames.map((frame) => frame.module)

  let content: ReactNode = (
    <RouteErrorBoundary resetKey={resetKey} Fallback={nearest([...layouts, routeModule], 'ErrorBoundary')}>
      <Content page={page} owners={[...layouts, routeModule]} />
    </RouteErrorBoundary>
  )
  // Inside out: each layout's boundary comes from the layouts above it.
  for (let i = frames.length - 1; i >= 0; i--) {
    const { layout, module } = frames[i]!
    const inner = i === 0 ? <Main>{content}</Main> : content
    content = (
      <RouteErrorBoundary resetKey={resetKey} Fallback={nearest(layouts.slice(0, i), 'ErrorBoundary')}>
        <module.Component data={page.payload.layouts?.[layout.id] as never}>{inner}</module.Component>
      </RouteErrorBoundary>
    )
  }
  // A form's validation errors reach every level: a layout's form shows its errors as a page's does.
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

function Content({ page, owners }: { readonly page: ReadyPage; readonly owners: ReadonlyArray<Boundaries | undefined> }) {
  const { payload, module } = page
  switch (payload.kind) {
    case 'page': {
      if (!module) throw new Error(`Page module of route "${payload.routeId}" is not loaded`)
      const { Component } = module as PageModule
      // Another params value is another page: its state starts afresh, as Next.js
      // remounts on a dynamic segment change. The query is the same page's.
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
    // In the build the condition is `false` and the overlay's code is left out.
    if (import.meta.env.DEV && error.devError) showDevError(error.devError)
  }, [error])
  return null
}
