/**
 * The browser's page cache, by page key. A load started later wins over one started
 * before it, whichever responds first; after a server action the pages it reached are stale.
 */
import { DYNAMIC_DATA_TTL_MS, STATIC_DATA_TTL_MS } from '../../../shared/framework/constants.js'
import type { RenderPayload } from '../../../shared/framework/page-payload.js'
import type { LoadContext, LoadResult, loadPage } from './load-page.js'
import type { PageSource, ReadyPage } from '../view/page-source.js'

interface Entry {
  readonly page: ReadyPage
  readonly fetchedAt: number
  /** The order its load started in: an older load's response never replaces it. */
  readonly order: number
  readonly stale?: true
}

export interface PageStoreOptions extends Omit<LoadContext, 'now'> {
  /**
   * Fetches a page: the browser's start passes one that waits for the navigation
   * engine's chunk, where the fetching code lives (nothing is fetched before hydration).
   */
  readonly load: typeof loadPage
  /** Follows a redirect or reload that a `request()` (back/forward) ran into. */
  readonly onUnresolved: (key: string, result: Exclude<LoadResult, { kind: 'ready' }>) => void
  readonly now?: () => number
  /** Who is signed in, as the browser's identity cookie says now (shared/framework/identity.ts). */
  readonly identity?: () => string
  /** Whom the first page was rendered for, when it says (a dynamic page): else the cookie's. */
  readonly firstIdentity?: string | undefined
}

export class PageStore implements PageSource {
  readonly #entries = new Map<string, Entry>()
  readonly #inFlight = new Map<string, Promise<LoadResult>>()
  readonly #listeners = new Set<() => void>()
  readonly #context: LoadContext
  readonly #load: typeof loadPage
  readonly #onUnresolved: PageStoreOptions['onUnresolved']
  readonly #now: () => number
  #started = 0
  /** Loads started before the last invalidation may hold what an action changed: their pages go in stale. */
  #staleBefore = 0
  readonly #identityNow: () => string
  /** The identity what this store holds was loaded for. */
  #identity: string

  constructor({ onUnresolved, now = () => Date.now(), identity = () => '', firstIdentity, load, ...context }: PageStoreOptions) {
    this.#load = load
    this.#identityNow = identity
    this.#identity = firstIdentity ?? identity()
    this.#now = now
    this.#context = { ...context, now }
    this.#onUnresolved = onUnresolved
  }

  subscribe = (onChange: () => void): (() => void) => {
    this.#listeners.add(onChange)
    return () => this.#listeners.delete(onChange)
  }

  read = (key: string): ReadyPage | undefined => {
    const entry = this.#entries.get(key)
    return entry && !entry.stale ? entry.page : undefined
  }

  /** A page for once (its loaders took a flash message) is dropped once left: Back asks the server again. */
  left(key: string, page: ReadyPage): void {
    if (page.payload.kind === 'page' && page.payload.once && this.#entries.get(key)?.page === page) this.#entries.delete(key)
  }

  /** The first page, from the HTML, goes in this way. */
  set(key: string, page: ReadyPage, fetchedAt = this.#now()): void {
    this.#entries.set(key, { page, fetchedAt, order: ++this.#started })
    this.#notify()
  }

  announce(): void {
    this.#notify()
  }

  #notify(): void {
    for (const listener of this.#listeners) listener()
  }

  /**
   * Never fresh: a 5xx page, a form's 422 (the response to a post; a later visit is a GET),
   * and a `once` page (a flash message).
   */
  isFresh(key: string): boolean {
    const entry = this.#entries.get(key)
    if (!entry || entry.stale) return false
    const { payload } = entry.page
    if ((payload.kind === 'error' && payload.status >= 500) || (payload.kind === 'page' && (payload.action || payload.once))) return false
    const ttl = payload.kind === 'page' && payload.mode === 'static' ? STATIC_DATA_TTL_MS : DYNAMIC_DATA_TTL_MS
    return this.#now() - entry.fetchedAt < ttl
  }

  isLoading(key: string): boolean {
    return this.#inFlight.has(key)
  }

  /** A ready page goes into the cache without notifying: the navigation that asked decides when it shows. */
  load(key: string): Promise<LoadResult> {
    this.checkIdentity()
    const cached = this.#entries.get(key)
    if (cached && this.isFresh(key)) return Promise.resolve({ kind: 'ready', page: cached.page, fetchedAt: cached.fetchedAt })
    return this.#inFlight.get(key) ?? this.#fetch(key, () => {})
  }

  /** Supersedes whatever a load under way will bring, and shows the result (after an action). */
  reload(key: string): Promise<LoadResult> {
    this.checkIdentity()
    return this.#fetch(key, () => this.#notify())
  }

  #fetch(key: string, kept: () => void): Promise<LoadResult> {
    const order = ++this.#started
    const loading = this.#load(key, this.#context).then((result) => {
      if (this.#inFlight.get(key) === loading) this.#inFlight.delete(key)
      if (result.kind === 'ready' && (this.#entries.get(key)?.order ?? 0) < order) {
        const stale = order < this.#staleBefore ? { stale: true as const } : {}
        this.#entries.set(key, { page: result.page, fetchedAt: result.fetchedAt, order, ...stale })
        kept()
      }
      return result
    })
    this.#inFlight.set(key, loading)
    return loading
  }

  /**
   * Signed in or out since (in another tab, or by an action here): no page or layout data
   * held is shown again, and the next load asks for every layout.
   */
  checkIdentity(): void {
    const identity = this.#identityNow()
    if (identity === this.#identity) return
    this.#identity = identity
    this.invalidate(
      () => true,
      () => true,
      undefined,
    )
  }

  request(key: string): void {
    void this.load(key).then((result) => {
      if (result.kind === 'ready') this.#notify()
      else this.#onUnresolved(key, result)
    })
  }

  /** After a server action: the pages it `reached` are stale, but `shown` stays until its reload replaces it. */
  invalidate(reached: (payload: RenderPayload) => boolean, layoutReached: (id: string) => boolean, shown: string | undefined): void {
    this.#context.layouts.forget(layoutReached)
    // A load under way began before the change: what it brings goes in stale, and the next asks again.
    this.#staleBefore = ++this.#started
    this.#inFlight.clear()
    for (const [key, entry] of this.#entries) {
      if (key !== shown && !entry.stale && reached(entry.page.payload)) this.#entries.set(key, { ...entry, stale: true })
    }
  }
}
