/**
 * The browser's navigation engine (DESIGN §5), around wouter's `aroundNav`:
 * - a navigation loads the target's chunk and data first (from the cache when fresh,
 *   joining a prefetch already running), and changes the URL only once the page is
 *   ready; a newer navigation supersedes an older one, which then never renders;
 * - anything that cannot be shown in place becomes a document load of the target:
 *   no answer within ROUTE_LOAD_TIMEOUT_MS, a network failure, another build, a
 *   chunk that fails to load;
 * - a navigation still loading after SLOW_NAVIGATION_MS is reported as slow (the
 *   progress indicator shows);
 * - once the new page is on screen (the page host reports it), scroll goes to the top
 *   or the `#hash` on push, back to where it was on back/forward; focus moves to the
 *   page and its title is announced to screen readers.
 * Back/forward never pass through `aroundNav`; the popstate listener records where
 * to scroll, and the page host reads the location-keyed cache like any other time.
 */
import type { AroundNavHandler, NavigateOptions } from 'wouter'
import { MAIN_ELEMENT_ID, ROUTE_LOAD_TIMEOUT_MS } from '../../shared/constants.js'
import { locationKey } from '../../shared/location.js'
import type { ScreenPayload } from '../../shared/page-payload.js'
import type { LoadResult } from './load-page.js'
import type { PageStore } from './page-store.js'
import { PrefetchQueue } from './prefetch-queue.js'

/** How long a navigation may take before the progress indicator shows. */
export const SLOW_NAVIGATION_MS = 150
/** More redirects than this in one navigation is a loop: let the browser handle it. */
const MAX_REDIRECTS = 10
/** Where our id of a history entry lives in `history.state`. */
const ENTRY_KEY = '__entry'

export interface NavigationState {
  /** A navigation has been loading for longer than SLOW_NAVIGATION_MS. */
  readonly slow: boolean
  /** What the live region reads out: the title of the page navigated to. */
  readonly announcement: string
}

/**
 * What monitoring hears of navigations: one began (a link or back/forward), it met a
 * redirect, or its page is on screen. A navigation with no `shown` (superseded, turned
 * into a document load, to the page already shown) never completes.
 */
export type NavigationEvent =
  | { readonly type: 'start'; readonly to: string }
  | { readonly type: 'redirect'; readonly to: string }
  | { readonly type: 'shown'; readonly from: string; readonly to: string; readonly kind: ScreenPayload['kind'] }

/** Why a link asks for a prefetch: it came into view, or the user showed intent. */
export type PrefetchReason = 'viewport' | 'intent'

type Arrival = { readonly kind: 'push'; readonly hash: string } | { readonly kind: 'pop'; readonly scrollY: number }

export interface NavigationEngineOptions {
  readonly store: PageStore
  /** A full document load; `location.assign` in the browser. */
  readonly hardNavigate: (url: string) => void
}

export class NavigationEngine {
  readonly aroundNav: AroundNavHandler
  readonly #store: PageStore
  readonly #hardNavigate: (url: string) => void
  readonly #queue: PrefetchQueue
  readonly #listeners = new Set<() => void>()
  readonly #eventListeners = new Set<(event: NavigationEvent) => void>()
  readonly #scrollPositions = new Map<string, number>()
  #state: NavigationState = { slow: false, announcement: '' }
  #latest = 0
  #entry: string
  #arrival: Arrival | undefined
  /** The location key of the page on screen. */
  #shownKey: string | undefined
  #shownKind: ScreenPayload['kind'] | undefined

  constructor({ store, hardNavigate }: NavigationEngineOptions) {
    this.#store = store
    this.#hardNavigate = hardNavigate
    this.#queue = new PrefetchQueue({
      load: (key) => store.load(key),
      isSettled: (key) => store.isFresh(key) || store.isLoading(key),
    })
    this.aroundNav = (navigate, to, options) => this.#navigate(navigate, to, options, ++this.#latest, 0)

    // We restore scroll ourselves: the browser would do it before the page is back.
    history.scrollRestoration = 'manual'
    this.#entry = entryOf(history.state) ?? newEntryId()
    history.replaceState({ ...asObject(history.state), [ENTRY_KEY]: this.#entry }, '')
    // Registered before wouter subscribes (it does so while hydrating), so the arrival
    // is known before the page for the new location renders.
    window.addEventListener('popstate', this.#onPopState)
  }

  subscribe = (onChange: () => void): (() => void) => {
    this.#listeners.add(onChange)
    return () => this.#listeners.delete(onChange)
  }

  getState = (): NavigationState => this.#state

  /** Asks for `href` to be loaded ahead of a click; a no-op where data must be saved. */
  prefetch(href: string, reason: PrefetchReason): void {
    if (prefersSavingData()) return
    const key = this.#keyOf(href)
    if (key && key !== currentKey()) this.#queue.add(key, reason === 'intent')
  }

  /** The link left the viewport: forget its prefetch if it has not started. */
  cancelPrefetch(href: string): void {
    const key = this.#keyOf(href)
    if (key) this.#queue.drop(key)
  }

  /** Forgets every cached page and loads the current one again (after a change on the server). */
  refresh(): void {
    this.#store.clear()
    this.#store.request(currentKey())
  }

  /** Forgets every cached page: the next visit to any of them asks the server. */
  clearCache(): void {
    this.#store.clear()
  }

  /**
   * The page host shows the page of `key` (after hydration, a navigation, a refresh).
   * Only a page that arrived by navigation moves scroll and focus; a refresh of the
   * same page leaves both where they are.
   */
  pageShown(key: string, title: string, kind: ScreenPayload['kind']): void {
    const from = this.#shownKey
    this.#shownKey = key
    this.#shownKind = kind
    if (this.#arrival && from !== undefined && from !== key) this.#emit({ type: 'shown', from, to: key, kind })
    this.#arrive(title)
  }

  /** The page on screen: its location key and what kind of page it is. */
  get shown(): { readonly key: string; readonly kind: ScreenPayload['kind'] } | undefined {
    return this.#shownKey !== undefined && this.#shownKind ? { key: this.#shownKey, kind: this.#shownKind } : undefined
  }

  /** Tells `listener` about every navigation's start, redirects and completion. */
  onNavigationEvent(listener: (event: NavigationEvent) => void): () => void {
    this.#eventListeners.add(listener)
    return () => this.#eventListeners.delete(listener)
  }

  #emit(event: NavigationEvent): void {
    for (const listener of this.#eventListeners) listener(event)
  }

  #arrive(title: string): void {
    const arrival = this.#arrival
    if (!arrival) return
    this.#arrival = undefined
    if (arrival.kind === 'pop') window.scrollTo(0, arrival.scrollY)
    else scrollToHash(arrival.hash)
    const main = document.getElementById(MAIN_ELEMENT_ID)
    main?.focus({ preventScroll: true })
    this.#setState({ ...this.#state, announcement: title })
  }

  #onPopState = (event: PopStateEvent): void => {
    this.#latest++ // whatever was loading is superseded by the move through history
    this.#scrollPositions.set(this.#entry, window.scrollY)
    this.#entry = entryOf(event.state) ?? newEntryId()
    this.#arrival = { kind: 'pop', scrollY: this.#scrollPositions.get(this.#entry) ?? 0 }
    this.#setState({ ...this.#state, slow: false })
    this.#emit({ type: 'start', to: currentKey() })
    // Same page, another entry (a #hash): nothing will render, so arrive now.
    if (currentKey() === this.#shownKey) this.#arrive(document.title)
  }

  #navigate(
    navigate: (to: string, options?: NavigateOptions) => void,
    to: string,
    options: NavigateOptions | undefined,
    ticket: number,
    redirects: number,
  ): void {
    const url = new URL(to, window.location.href)
    const target = url.pathname + url.search + url.hash
    if (url.origin !== window.location.origin) return this.#hardNavigate(url.href)
    const key = locationKey(url.pathname, url.search)
    this.#queue.drop(key) // a prefetch waiting for this URL: start it now, as the navigation
    this.#emit(redirects === 0 ? { type: 'start', to: key } : { type: 'redirect', to: key })

    const slowTimer = setTimeout(() => {
      if (ticket === this.#latest) this.#setState({ ...this.#state, slow: true })
    }, SLOW_NAVIGATION_MS)
    let timeoutTimer: ReturnType<typeof setTimeout> | undefined
    const timedOut = new Promise<LoadResult>((resolve) => {
      timeoutTimer = setTimeout(() => resolve({ kind: 'reload', reason: 'timed out' }), ROUTE_LOAD_TIMEOUT_MS)
    })

    void Promise.race([this.#store.load(key), timedOut]).then((result) => {
      clearTimeout(slowTimer)
      clearTimeout(timeoutTimer)
      if (ticket !== this.#latest) return // superseded: the newer navigation decides
      if (result.kind === 'redirect') {
        if (redirects >= MAX_REDIRECTS) return this.#hardNavigate(result.location)
        // The redirect's target takes the place of the link's URL in history.
        return this.#navigate(navigate, result.location, options, ticket, redirects + 1)
      }
      this.#setState({ ...this.#state, slow: false })
      if (result.kind === 'reload') return this.#hardNavigate(target)

      this.#scrollPositions.set(this.#entry, window.scrollY)
      this.#entry = newEntryId()
      this.#arrival = { kind: 'push', hash: url.hash }
      navigate(target, { ...options, state: { ...asObject(options?.state), [ENTRY_KEY]: this.#entry } })
      // Same page (a link to itself, or to a #hash on it): nothing re-renders, arrive now.
      if (key === this.#shownKey) this.#arrive(document.title)
    })
  }

  #keyOf(href: string): string | undefined {
    const url = new URL(href, window.location.href)
    return url.origin === window.location.origin ? locationKey(url.pathname, url.search) : undefined
  }

  #setState(next: NavigationState): void {
    if (next.slow === this.#state.slow && next.announcement === this.#state.announcement) return
    this.#state = next
    for (const listener of this.#listeners) listener()
  }
}

function currentKey(): string {
  return locationKey(window.location.pathname, window.location.search)
}

function scrollToHash(hash: string): void {
  const id = hash ? decodeHash(hash.slice(1)) : ''
  const target = id ? document.getElementById(id) : null
  if (target) target.scrollIntoView()
  else window.scrollTo(0, 0)
}

/** A `#hash` as an element id; a malformed one as it came (no element has it, so the top). */
function decodeHash(hash: string): string {
  try {
    return decodeURIComponent(hash)
  } catch {
    return hash
  }
}

/** Data Saver on, or a 2G-class connection: no speculative requests. */
function prefersSavingData(): boolean {
  const connection = (navigator as Navigator & { connection?: { saveData?: boolean; effectiveType?: string } })
    .connection
  return !!connection && (connection.saveData === true || /(^|-)2g$/.test(connection.effectiveType ?? ''))
}

function newEntryId(): string {
  return Math.random().toString(36).slice(2)
}

function entryOf(state: unknown): string | undefined {
  const entry = asObject(state)[ENTRY_KEY]
  return typeof entry === 'string' ? entry : undefined
}

function asObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {}
}
