/**
 * The browser's navigation (docs/architecture.md, "Navigation"): wires loading,
 * scroll restoration, status and prefetching to history and the page host.
 * Back/forward never pass through `aroundNav`: the popstate listener handles them.
 */
import type { NavigateOptions } from 'wouter'
import type { ChangedOnWire } from '../../../shared/framework/actions.js'
import { ROUTE_LOAD_TIMEOUT_MS } from '../../../shared/framework/constants.js'
import { pageKeyOf } from '../../../shared/framework/location.js'
import type { RenderPayload } from '../../../shared/framework/page-payload.js'
import { prefetchModeOf, type PrefetchMode, type Router } from '../../../shared/framework/route-table.js'
import type { LayoutSet } from '../view/layout-tree.js'
import type { AppNavigation, PrefetchReason } from '../view/navigation-context.js'
import { applyHeadTags, ERROR_TITLE, headTagsOf, titleOf } from '../view/page-head.js'
import type { ReadyPage } from '../view/page-source.js'
import { ScrollRestoration } from './scroll-restoration.js'
import { observeLink } from './link-visibility.js'
import { DEADLINE_PASSED, NavigationLoading } from './navigation-loading.js'
import { NavigationStatusStore } from './navigation-status-store.js'
import type { PageStore } from './page-store.js'
import { PrefetchQueue } from './prefetch-queue.js'
import { revalidation, type Revalidation } from './revalidation.js'

// The page store fetches through the engine's chunk: nothing is fetched before it attaches.
export { loadPage } from './load-page.js'

export const SLOW_NAVIGATION_MS = 150
/** More redirects than this in one navigation is a loop: let the browser handle it. */
const MAX_REDIRECTS = 10
const ENTRY_KEY = '__entry'

/** A navigation with no `shown` (superseded, turned into a document load, to the page already shown) never completes. */
export type NavigationEvent =
  | { readonly type: 'start'; readonly to: string }
  | { readonly type: 'redirect'; readonly to: string }
  | { readonly type: 'shown'; readonly from: string; readonly to: string; readonly kind: RenderPayload['kind'] }

export interface NavigationEngineOptions {
  readonly store: PageStore
  /** Which route a link leads to (its prefetch mode), and the layouts around a page (what an action reached). */
  readonly router: Pick<Router<any, any>, 'match' | 'layoutsOf'>
  readonly hardNavigate: (url: string) => void
  /** Runs before wouter's listener: the scroll target must be known before the new page renders. */
  readonly listenToPopState: (listener: (event: PopStateEvent) => void) => void
}

export class NavigationEngine implements AppNavigation {
  readonly aroundNav: AppNavigation['aroundNav']
  readonly #store: PageStore
  readonly #router: Pick<Router<any, any>, 'match' | 'layoutsOf'>
  readonly #hardNavigate: (url: string) => void
  readonly #status = new NavigationStatusStore()
  readonly #loading: NavigationLoading
  readonly #scroll: ScrollRestoration
  readonly #queue: PrefetchQueue
  readonly #eventListeners = new Set<(event: NavigationEvent) => void>()
  readonly #revalidation: Revalidation
  #shown: { readonly key: string; readonly kind: RenderPayload['kind'] } | undefined

  constructor({ store, router, hardNavigate, listenToPopState }: NavigationEngineOptions) {
    this.#store = store
    this.#router = router
    this.#hardNavigate = hardNavigate
    this.#loading = new NavigationLoading({
      load: (key) => store.load(key),
      timeoutMs: ROUTE_LOAD_TIMEOUT_MS,
      slowMs: SLOW_NAVIGATION_MS,
      onSlow: () => this.#status.setSlow(true),
    })
    this.#queue = new PrefetchQueue({
      load: (key) => store.load(key),
      isSettled: (key) => store.isFresh(key) || store.isLoading(key),
    })
    this.#revalidation = revalidation(store, router, currentKey, hardNavigate)
    this.aroundNav = (navigate, to, options) => this.#navigate(navigate, to, options, this.#loading.begin(), 0)

    // We restore scroll ourselves: the browser would do it before the page is back.
    history.scrollRestoration = 'manual'
    this.#scroll = new ScrollRestoration(entryOf(history.state))
    history.replaceState({ ...asObject(history.state), [ENTRY_KEY]: this.#scroll.entry }, '')
    window.addEventListener('pagehide', () => this.#scroll.leave())
    if (cameBack()) this.#scroll.restore()
    listenToPopState(this.#onPopState)
  }

  subscribe = (onChange: () => void): (() => void) => this.#status.subscribe(onChange)

  getState = () => this.#status.getState()

  prefetch(href: string, reason: PrefetchReason): void {
    if (prefersSavingData()) return
    const key = keyOf(href)
    if (key && key !== currentKey()) this.#queue.add(key, reason === 'intent')
  }

  /** By the route's prefetch mode; a page no route matches prefetches on intent. */
  prefetchModeOf(href: string): PrefetchMode {
    const key = keyOf(href)
    return prefetchModeOf(key === undefined ? undefined : this.#router.match(key.split('?', 1)[0]!)?.route)
  }

  cancelPrefetch(href: string): void {
    const key = keyOf(href)
    if (key) this.#queue.drop(key)
  }

  observeLink(element: Element, href: string): () => void {
    return observeLink(element, href, this)
  }

  revalidate(changed?: ChangedOnWire): Promise<void> {
    return this.#revalidation.revalidate(changed)
  }

  invalidate(changed?: ChangedOnWire): void {
    this.#revalidation.invalidate(changed)
  }

  get navigations(): number {
    return this.#loading.started
  }

  /** Only a page that arrived by navigation moves scroll and focus; a refresh leaves both. */
  pageShown(key: string, page: ReadyPage, layouts: LayoutSet | null): void {
    const { kind } = page.payload
    try {
      document.title = titleOf(page)
      applyHeadTags(headTagsOf(page, layouts))
    } catch (error) {
      // A throwing `title()` or `head()` must not take the whole app down: the page
      // still shows, under the error title, and the error is reported.
      document.title = ERROR_TITLE
      applyHeadTags([])
      reportError(error)
    }
    const title = document.title
    const from = this.#shown?.key
    this.#shown = { key, kind }
    if (this.#scroll.pending && from !== undefined && from !== key) this.#emit({ type: 'shown', from, to: key, kind })
    this.#restoreScroll(title)
  }

  get shown(): { readonly key: string; readonly kind: RenderPayload['kind'] } | undefined {
    return this.#shown
  }

  onNavigationEvent(listener: (event: NavigationEvent) => void): () => void {
    this.#eventListeners.add(listener)
    return () => this.#eventListeners.delete(listener)
  }

  #emit(event: NavigationEvent): void {
    for (const listener of this.#eventListeners) listener(event)
  }

  #restoreScroll(title: string): void {
    if (this.#scroll.pageShown()) this.#status.announce(title)
  }

  #onPopState = (event: PopStateEvent): void => {
    // Before the entry's cached page is looked at: it may be another sign-in's.
    this.#store.checkIdentity()
    const entry = entryOf(event.state)
    if (entry === undefined && currentKey() === this.#shown?.key) {
      // An entry the browser made itself (`<a href="#section">`, `location.hash`): it
      // already scrolled as without JavaScript; only give the entry an id for Back/Forward.
      history.replaceState({ ...asObject(history.state), [ENTRY_KEY]: this.#scroll.adopt() }, '')
      return
    }
    const navigationId = this.#loading.begin() // whatever was loading is superseded by the move through history
    this.#status.setSlow(false)
    this.#scroll.pop(entry)
    const key = currentKey()
    this.#emit({ type: 'start', to: key })
    // Same page, another entry (a #hash): nothing will render, so restore scroll now.
    if (key === this.#shown?.key) this.#restoreScroll(document.title)
    else if (!this.#store.read(key)) this.#watchEntryLoad(key, navigationId)
  }

  /** Back/Forward to an uncached page: the page host loads it; this adds the progress bar and the deadline. */
  #watchEntryLoad(key: string, navigationId: number): void {
    void this.#loading.load(key, navigationId).then((result) => {
      if (!result) return // superseded: the newer navigation decides
      this.#status.setSlow(false)
      if (result.kind === 'reload' && result.reason === DEADLINE_PASSED) this.#hardNavigate(window.location.href)
    })
  }

  #navigate(
    navigate: (to: string, options?: NavigateOptions) => void,
    to: string,
    options: NavigateOptions | undefined,
    navigationId: number,
    redirects: number,
  ): void {
    const url = new URL(to, window.location.href)
    const target = url.pathname + url.search + url.hash
    // `//host` (from `/.//host`) is another origin to a browser: load the absolute URL.
    if (url.origin !== window.location.origin || url.pathname.startsWith('//')) return this.#hardNavigate(url.href)
    // A link to the URL on screen replaces its entry, as a browser does, so Back leaves the page.
    // The link's own URL decides, not a redirect's target (a browser pushes then).
    if (redirects === 0 && url.href === window.location.href) options = { ...options, replace: true }
    const key = pageKeyOf(url.pathname, url.search)
    this.#queue.drop(key) // a prefetch waiting for this URL: start it now, as the navigation
    this.#emit(redirects === 0 ? { type: 'start', to: key } : { type: 'redirect', to: key })

    void this.#loading.load(key, navigationId).then((result) => {
      if (!result) return // superseded: the newer navigation decides
      if (result.kind === 'redirect') {
        if (redirects >= MAX_REDIRECTS) return this.#hardNavigate(result.location)
        return this.#navigate(navigate, result.location, options, navigationId, redirects + 1)
      }
      this.#status.setSlow(false)
      if (result.kind === 'reload') return this.#hardNavigate(url.href)

      const entry = this.#scroll.push(url.hash)
      navigate(target, { ...options, state: { ...asObject(options?.state), [ENTRY_KEY]: entry } })
      if (key === this.#shown?.key) {
        // The URL does not change, so the page host hears of the reload only from the store.
        this.#store.announce()
        this.#restoreScroll(document.title)
      }
    })
  }
}

/** A reload or Back/Forward: the user returns to a page they had scrolled. */
function cameBack(): boolean {
  const [entry] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[]
  return entry?.type === 'reload' || entry?.type === 'back_forward'
}

function currentKey(): string {
  return pageKeyOf(window.location.pathname, window.location.search)
}

function keyOf(href: string): string | undefined {
  const url = new URL(href, window.location.href)
  return url.origin === window.location.origin ? pageKeyOf(url.pathname, url.search) : undefined
}

/** Data Saver on, or a 2G-class connection: no speculative requests. */
function prefersSavingData(): boolean {
  const connection = (navigator as Navigator & { connection?: { saveData?: boolean; effectiveType?: string } }).connection
  return !!connection && (connection.saveData === true || /(^|-)2g$/.test(connection.effectiveType ?? ''))
}

function entryOf(state: unknown): string | undefined {
  const entry = asObject(state)[ENTRY_KEY]
  return typeof entry === 'string' ? entry : undefined
}

function asObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {}
}
