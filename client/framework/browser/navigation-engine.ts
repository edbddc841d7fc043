/**
 * The browser's navigation (docs/architecture.md, "Navigation"), around wouter's
 * `aroundNav`, composed from parts by job:
 * - loading (navigation-loading.ts): a navigation loads the target's chunk and data
 *   first (from the cache when fresh, joining a prefetch already running) and changes
 *   the URL only once the page is ready; a newer navigation supersedes an older one;
 *   anything that cannot be shown in place (no answer within ROUTE_LOAD_TIMEOUT_MS, a
 *   network failure, another build, a chunk that fails to load) becomes a document load;
 * - scroll restoration (scroll-restoration.ts): once the new page is on screen, scroll and focus;
 * - status (navigation-status-store.ts): the progress bar and the announcement;
 * - prefetching (prefetch-queue.ts, link-visibility.ts), skipped when saving data.
 * This class wires them to history and to the page host, and tells listeners
 * (monitoring) what navigations do. Back/forward never pass through `aroundNav`: the
 * popstate listener records where to scroll and watches the load of a page the cache
 * does not hold (the same progress bar and deadline), and the page host reads the
 * location-keyed cache like any other time.
 */
import type { NavigateOptions } from 'wouter'
import type { Changed } from '../../../shared/framework/actions.js'
import { ROUTE_LOAD_TIMEOUT_MS } from '../../../shared/framework/constants.js'
import { locationKey } from '../../../shared/framework/location.js'
import type { ScreenPayload } from '../../../shared/framework/page-payload.js'
import { prefetchModeOf, type PrefetchMode, type Router } from '../../../shared/framework/route-table.js'
import type { AppNavigation, PrefetchReason } from '../view/navigation-context.js'
import { ScrollRestoration } from './scroll-restoration.js'
import { observeLink } from './link-visibility.js'
import { DEADLINE_PASSED, NavigationLoading } from './navigation-loading.js'
import { NavigationStatusStore } from './navigation-status-store.js'
import type { PageStore } from './page-store.js'
import { PrefetchQueue } from './prefetch-queue.js'
import { revalidation, type Revalidation } from './revalidation.js'

/** How long a navigation may take before the progress indicator shows. */
export const SLOW_NAVIGATION_MS = 150
/** More redirects than this in one navigation is a loop: let the browser handle it. */
const MAX_REDIRECTS = 10
/** Where our id of a history entry lives in `history.state`. */
const ENTRY_KEY = '__entry'

/**
 * What monitoring hears of navigations: one began (a link or back/forward), it met a
 * redirect, or its page is on screen. A navigation with no `shown` (superseded, turned
 * into a document load, to the page already shown) never completes.
 */
export type NavigationEvent =
  | { readonly type: 'start'; readonly to: string }
  | { readonly type: 'redirect'; readonly to: string }
  | { readonly type: 'shown'; readonly from: string; readonly to: string; readonly kind: ScreenPayload['kind'] }

export interface NavigationEngineOptions {
  readonly store: PageStore
  /** Which route a link leads to (its prefetch mode), and the layouts around a page (what an action reached). */
  readonly router: Pick<Router<any, any>, 'match' | 'layoutsOf'>
  /** A full document load; `location.assign` in the browser. */
  readonly hardNavigate: (url: string) => void
  /**
   * Hands the engine's popstate listener to a relay that runs before wouter's: the
   * scroll restoration must be known before the page for the new location renders, and wouter
   * subscribes while hydrating, before the engine exists (start.tsx registers the relay
   * first).
   */
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
  /** The page on screen: its location key and what kind of page it is. */
  #shown: { readonly key: string; readonly kind: ScreenPayload['kind'] } | undefined

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

  /** Asks for `href` to be loaded ahead of a click; a no-op where data must be saved. */
  prefetch(href: string, reason: PrefetchReason): void {
    if (prefersSavingData()) return
    const key = keyOf(href)
    if (key && key !== currentKey()) this.#queue.add(key, reason === 'intent')
  }

  /** When links to `href` prefetch: as its route says, by default by its render mode (a page no route matches: on intent). */
  prefetchModeOf(href: string): PrefetchMode {
    const key = keyOf(href)
    return prefetchModeOf(key === undefined ? undefined : this.#router.match(key.split('?', 1)[0]!)?.route)
  }

  /** The link left the viewport: forget its prefetch if it has not started. */
  cancelPrefetch(href: string): void {
    const key = keyOf(href)
    if (key) this.#queue.drop(key)
  }

  observeLink(element: Element, href: string): () => void {
    return observeLink(element, href, this)
  }

  /** After a server action: see `revalidation` (./revalidation.ts). */
  revalidate(changed?: Changed): Promise<void> {
    return this.#revalidation.revalidate(changed)
  }

  invalidate(changed?: Changed): void {
    this.#revalidation.invalidate(changed)
  }

  get navigations(): number {
    return this.#loading.started
  }

  /**
   * The page host shows the page of `key` (after hydration, a navigation, a refresh).
   * Only a page that arrived by navigation moves scroll and focus; a refresh of the
   * same page leaves both where they are.
   */
  pageShown(key: string, title: string, kind: ScreenPayload['kind']): void {
    const from = this.#shown?.key
    this.#shown = { key, kind }
    if (this.#scroll.pending && from !== undefined && from !== key) this.#emit({ type: 'shown', from, to: key, kind })
    this.#restoreScroll(title)
  }

  /** The page on screen: its location key and what kind of page it is. */
  get shown(): { readonly key: string; readonly kind: ScreenPayload['kind'] } | undefined {
    return this.#shown
  }

  /** Tells `listener` about every navigation's start, redirects and completion. */
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
    const entry = entryOf(event.state)
    if (entry === undefined && currentKey() === this.#shown?.key) {
      // A new entry of the page on screen that the browser made itself: a plain
      // `<a href="#section">` or `location.hash`. It scrolled to the fragment (or, with
      // no such element, stayed), as it does without JavaScript; the page, the focus
      // and the screen reader stay where they are. The entry gets an id, so Back and
      // Forward return to its position; a link's navigation still loading goes on.
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

  /**
   * Back or Forward to a page the cache does not hold: the page host asks the store for
   * it, keeping the previous page on screen, and shows it (or follows a redirect or
   * another build: start's `onUnresolved`). This watches the same load for what a link
   * has besides: the progress bar, and the deadline, past which the entry is loaded as
   * a document.
   */
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
    // Another origin, or a path a browser would read as one (`//host`, from `/.//host`):
    // a document load of the absolute URL, never a relative one.
    if (url.origin !== window.location.origin || url.pathname.startsWith('//')) return this.#hardNavigate(url.href)
    // A link to the URL already shown replaces its entry, as a browser does for a plain
    // link to the same URL: Back then leaves the page instead of showing it again. The
    // link's own URL decides, not where a redirect takes it (a browser pushes then).
    if (redirects === 0 && url.href === window.location.href) options = { ...options, replace: true }
    const key = locationKey(url.pathname, url.search)
    this.#queue.drop(key) // a prefetch waiting for this URL: start it now, as the navigation
    this.#emit(redirects === 0 ? { type: 'start', to: key } : { type: 'redirect', to: key })

    void this.#loading.load(key, navigationId).then((result) => {
      if (!result) return // superseded: the newer navigation decides
      if (result.kind === 'redirect') {
        if (redirects >= MAX_REDIRECTS) return this.#hardNavigate(result.location)
        // The redirect's target takes the place of the link's URL in history.
        return this.#navigate(navigate, result.location, options, navigationId, redirects + 1)
      }
      this.#status.setSlow(false)
      if (result.kind === 'reload') return this.#hardNavigate(url.href)

      const entry = this.#scroll.push(url.hash)
      navigate(target, { ...options, state: { ...asObject(options?.state), [ENTRY_KEY]: entry } })
      if (key === this.#shown?.key) {
        // Same page (a link to itself, or to a #hash on it): the URL does not change, so
        // the page host hears of a page loaded again only from the store; then restore scroll now.
        this.#store.announce()
        this.#restoreScroll(document.title)
      }
    })
  }
}

/** True when this document was reloaded, or reached by Back/Forward: the user returns to a page they had scrolled. */
function cameBack(): boolean {
  const [entry] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[]
  return entry?.type === 'reload' || entry?.type === 'back_forward'
}

function currentKey(): string {
  return locationKey(window.location.pathname, window.location.search)
}

/** The location key of a same-origin href; undefined for another origin. */
function keyOf(href: string): string | undefined {
  const url = new URL(href, window.location.href)
  return url.origin === window.location.origin ? locationKey(url.pathname, url.search) : undefined
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
