/**
 * Hydrates the tree the server rendered. The navigation engine loads meanwhile and attaches
 * after, off the critical path; a link clicked before then is a document load, as without
 * JavaScript (in place, it would skip scroll restoration, focus and the announcement).
 */
import { flushSync } from 'react-dom'
import { hydrateRoot, type HydrationOptions, type Root } from 'react-dom/client'
import { BOOTSTRAP_ELEMENT_ID, MONITORING_ELEMENT_ID, ROOT_ELEMENT_ID } from '../../../shared/framework/constants.js'
import type { BrowserMonitoringConfig } from '../../../shared/framework/monitoring.js'
import { listenForEarlyErrors, reportCaughtError } from '../monitoring/client-errors.js'
import { identityInCookies } from '../../../shared/framework/identity.js'
import { pageKeyOf } from '../../../shared/framework/location.js'
import type { AnyPayload, RenderPayload } from '../../../shared/framework/page-payload.js'
import { isDeferredDataError } from '../../../shared/framework/deferred.js'
import type { LayoutTable, Router, RouteTable } from '../../../shared/framework/route-table.js'
import { AppRoot } from '../view/app-root.js'
import { showCaughtRenderError } from '../view/dev-overlay.js'
import type {} from './import-meta.js' // `import.meta.env`'s type, wherever this file is compiled from
import { definedPage, type LayoutModules, type PageImports, type PageModule } from '../page-module.js'
import { LayoutData } from './layout-data.js'
import { deferredPartsModule } from './deferred-parts-module.js'
import type { NavigationEngine } from './navigation-engine.js'
import { PageModules } from './page-modules.js'
import { PageStore } from './page-store.js'

export interface ClientApp<Table extends RouteTable, Layouts extends LayoutTable> {
  readonly router: Router<Table, Layouts>
  readonly pages: PageImports<Table>
  readonly layouts: LayoutModules<Layouts>
}

/** A path is put after this origin as it is: `//host/x` (a page key can look like that) stays on this site. */
function hardNavigate(url: string, replace = false): void {
  const absolute = url.startsWith('/') ? window.location.origin + url : url
  if (replace) window.location.replace(absolute)
  else window.location.assign(absolute)
}

export async function startClient<Table extends RouteTable, Layouts extends LayoutTable>(app: ClientApp<Table, Layouts>): Promise<void> {
  const monitoring = readMonitoringConfig()
  if (monitoring) listenForEarlyErrors() // before anything else can throw
  const bootstrap = document.getElementById(BOOTSTRAP_ELEMENT_ID)
  const container = document.getElementById(ROOT_ELEMENT_ID)
  if (!bootstrap?.textContent || !container) throw new Error('The page has no bootstrap data or root element')
  const bootstrapped = JSON.parse(bootstrap.textContent) as AnyPayload
  if (bootstrapped.kind === 'redirect') throw new Error('A document never carries a redirect payload')
  const payload = await receiveDocumentParts(bootstrapped)

  const engineChunk = import('./navigation-engine.js') // loads while the page hydrates
  const modules = new PageModules(app.pages)
  const layoutData = new LayoutData(app.router, () => Date.now())
  const store = new PageStore({
    buildId: payload.buildId,
    router: app.router,
    modules,
    layouts: layoutData,
    onUnresolved: (key, result) => hardNavigate(result.kind === 'redirect' ? result.location : key),
    identity: () => identityInCookies(document.cookie),
    firstIdentity: payload.identity,
    load: (key, context) => engineChunk.then(({ loadPage }) => loadPage(key, context)),
  })
  layoutData.complete(payload, new Map(), Date.now())
  // Registered before hydration, so before wouter's: the engine's listener, once attached, runs first.
  let onPopState: ((event: PopStateEvent) => void) | undefined
  window.addEventListener('popstate', (event) => onPopState?.(event))
  const module = payload.routeId !== undefined ? await firstPageModule(app.router.routes, modules, payload.routeId) : undefined
  // An error page in the document may be a form post's response (a 403, 413...), which a
  // later GET would not meet: it goes in already stale.
  const fetchedAt = payload.kind === 'error' ? Number.NEGATIVE_INFINITY : undefined
  store.set(pageKeyOf(window.location.pathname, window.location.search), { payload, ...(module ? { module } : {}) }, fetchedAt)

  const layouts = { router: app.router, modules: app.layouts }
  const tree = (navigation: NavigationEngine | undefined, onCommitted: () => void) => (
    <AppRoot
      source={store}
      layouts={layouts}
      navigation={navigation}
      navigateBeforeEngine={(_navigate, to, options) => hardNavigate(to, options?.replace)}
      onHydrated={onCommitted}
    />
  )
  let hydrated!: () => void
  const hydration = new Promise<void>((resolve) => (hydrated = resolve))
  // Hydrated in this task, not scheduled: interactive sooner, no frame or timer runs first.
  let root!: Root
  flushSync(() => {
    root = hydrateRoot(
      container,
      tree(undefined, () => {
        performance.mark('app:hydrated') // what `npm run bench` reads as hydration time
        hydrated()
      }),
      ROOT_OPTIONS,
    )
  })

  const [{ NavigationEngine }] = await Promise.all([engineChunk, hydration])
  const navigation = new NavigationEngine({ store, router: app.router, hardNavigate, listenToPopState: (listener) => (onPopState = listener) })
  root.render(
    tree(navigation, () => {
      markInteractive()
      // Off the critical path: the SDK's chunk loads once the page is interactive.
      if (!monitoring) return
      const patternOf = (key: string) => app.router.match(key.split('?', 1)[0]!)?.route.pattern
      void import('../monitoring/sentry-browser.js').then((m) => m.startMonitoring(monitoring, { navigation, patternOf }))
    }),
  )
}

/**
 * In a production build the document's script is the page's chunk, which imports this
 * entry: once the first `await` resumes, its `definePage` has recorded the module. A
 * dynamic import would settle a task later (5 to 12 ms of /about's hydration).
 */
async function firstPageModule(routes: RouteTable, modules: PageModules, routeId: string): Promise<PageModule> {
  await Promise.resolve() // after the rest of the module graph: see above
  const route = routes[routeId]
  return (route && definedPage(route)) ?? modules.load(routeId)
}

const ROOT_OPTIONS: HydrationOptions = {
  onRecoverableError(error) {
    // A boundary the server could not finish: the server reported it once, under this digest.
    if (typeof (error as { digest?: unknown }).digest === 'string') return
    reportError(error)
  },
  onCaughtError(error, info) {
    // A deferred part's failure was logged and reported on the server, once; its boundary shows the digest.
    if (isDeferredDataError(error)) return
    console.error(error) // the error page tells the user to look here
    reportCaughtError(error, info.componentStack)
    // `npm run dev`: Vite's overlay too. Never in a build: the condition is `false` there.
    if (import.meta.env.DEV) showCaughtRenderError(error, info.componentStack)
  },
}

async function receiveDocumentParts<P extends RenderPayload>(payload: P): Promise<P> {
  return payload.deferred ? (await deferredPartsModule()).receiveDocumentParts(payload) : payload
}

function readMonitoringConfig(): BrowserMonitoringConfig | undefined {
  const text = document.getElementById(MONITORING_ELEMENT_ID)?.textContent
  return text ? (JSON.parse(text) as BrowserMonitoringConfig) : undefined
}

/** `<html data-hydrated>`: browser tests wait on it, and monitoring starts from here. */
function markInteractive(): void {
  document.documentElement.dataset.hydrated = 'true'
}
