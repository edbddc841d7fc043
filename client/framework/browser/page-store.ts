/**
 * The browser's location-keyed page cache (docs/architecture.md, "Navigation"): pathname + search -> a page
 * ready to render, with when it was fetched. Navigation fills it before the URL
 * changes; the page host reads it for whatever the URL is, so back/forward find
 * their pages here too. Loads of one key are shared while in flight.
 */
import { DYNAMIC_DATA_TTL_MS, STATIC_DATA_TTL_MS } from '../../../shared/framework/constants.js'
import { loadPage, type LoadContext, type LoadResult } from './load-page.js'
import type { PageSource, ReadyPage } from '../view/page-source.js'

interface Entry {
  readonly page: ReadyPage
  readonly fetchedAt: number
}

export interface PageStoreOptions extends Omit<LoadContext, 'now'> {
  /** Follows a redirect or reload that a `request()` (back/forward) ran into. */
  readonly onUnresolved: (key: string, result: Exclude<LoadResult, { kind: 'ready' }>) => void
  readonly now?: () => number
}

export class PageStore implements PageSource {
  readonly #entries = new Map<string, Entry>()
  readonly #inFlight = new Map<string, Promise<LoadResult>>()
  readonly #listeners = new Set<() => void>()
  readonly #context: LoadContext
  readonly #onUnresolved: PageStoreOptions['onUnresolved']
  readonly #now: () => number

  constructor({ onUnresolved, now = () => Date.now(), ...context }: PageStoreOptions) {
    this.#now = now
    this.#context = { ...context, now }
    this.#onUnresolved = onUnresolved
  }

  subscribe = (onChange: () => void): (() => void) => {
    this.#listeners.add(onChange)
    return () => this.#listeners.delete(onChange)
  }

  read = (key: string): ReadyPage | undefined => this.#entries.get(key)?.page

  /**
   * A page that was for once (its loaders took a flash message) is dropped once left:
   * Back to it asks the server, as a link does, instead of thanking the user again.
   */
  left(key: string, page: ReadyPage): void {
    if (page.payload.kind === 'page' && page.payload.once && this.#entries.get(key)?.page === page) this.#entries.delete(key)
  }

  /** Puts a page in the cache and tells the page host (the first page, from the HTML, goes in this way). */
  set(key: string, page: ReadyPage, fetchedAt = this.#now()): void {
    this.#entries.set(key, { page, fetchedAt })
    for (const listener of this.#listeners) listener()
  }

  /**
   * True while the cached page of `key` is young enough to show without asking again:
   * 300 s for a static route, 30 s otherwise, from when it was fetched. Never fresh,
   * so the next visit asks again: a server failure's screen; a page rendered again
   * with a refused form's errors (422), which answered a post (a later visit by a link
   * is another request, a GET); a page whose loaders changed the visitor's state
   * (`once`: a flash message shown once). (The first document's refusal of a post, a
   * 403, 413 or 415 screen, goes in already stale: see `start`.)
   */
  isFresh(key: string): boolean {
    const entry = this.#entries.get(key)
    if (!entry) return false
    const { payload } = entry.page
    if ((payload.kind === 'error' && payload.status >= 500) || (payload.kind === 'page' && (payload.action || payload.once))) return false
    const ttl = payload.kind === 'page' && payload.mode === 'static' ? STATIC_DATA_TTL_MS : DYNAMIC_DATA_TTL_MS
    return this.#now() - entry.fetchedAt < ttl
  }

  /** True while a load of `key` is under way. */
  isLoading(key: string): boolean {
    return this.#inFlight.has(key)
  }

  /**
   * Loads `key` unless a fresh copy is cached; a ready page goes into the cache
   * (without notifying: the navigation that asked decides when it shows).
   */
  load(key: string): Promise<LoadResult> {
    const cached = this.#entries.get(key)
    if (cached && this.isFresh(key)) return Promise.resolve({ kind: 'ready', page: cached.page, fetchedAt: cached.fetchedAt })
    let loading = this.#inFlight.get(key)
    if (!loading) {
      loading = loadPage(key, this.#context).then((result) => {
        this.#inFlight.delete(key)
        if (result.kind === 'ready') this.#entries.set(key, { page: result.page, fetchedAt: result.fetchedAt })
        return result
      })
      this.#inFlight.set(key, loading)
    }
    return loading
  }

  request(key: string): void {
    void this.load(key).then((result) => {
      if (result.kind === 'ready') this.set(key, result.page, result.fetchedAt)
      else this.#onUnresolved(key, result)
    })
  }

  /** Forgets every cached page and layout's data (after a server action changed what they show). */
  clear(): void {
    this.#entries.clear()
    this.#context.layouts.clear()
  }
}
