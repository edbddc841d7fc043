/**
 * Static routes rendered once, served from memory (docs/architecture.md, "Routes", "Page delivery"): their data does not
 * depend on the request, so the first answer for a URL serves every later request for
 * it until the process (the build) ends: the document, kept with a placeholder where
 * the CSP nonce goes (each response gets its own fresh nonce) and without the theme
 * (each response gets the visitor's, on `<html>`), and the page data,
 * kept serialized. Bounded: query strings make URLs unbounded, so the least recently
 * used entry goes first.
 */
import { randomBytes } from 'node:crypto'
import { DOCUMENT_START, themeAttribute } from './document.js'

/** Stands for the nonce in a cached document; random per process, so no page can contain it by chance. */
export const NONCE_PLACEHOLDER = `nonce-placeholder-${randomBytes(12).toString('hex')}`

const MAX_ENTRIES = 500

export interface StaticPage {
  /** The whole document, with NONCE_PLACEHOLDER where the nonce goes. */
  readonly template: string
  readonly etag: string
}

/** A static page's data as the page-data endpoint sends it. */
export interface StaticData {
  readonly json: string
  readonly etag: string
}

export class StaticCache<Entry> {
  readonly #entries = new Map<string, Entry>()

  get(key: string): Entry | undefined {
    const page = this.#entries.get(key)
    if (page) {
      // Most recently used last: a Map keeps insertion order.
      this.#entries.delete(key)
      this.#entries.set(key, page)
    }
    return page
  }

  set(key: string, entry: Entry): void {
    this.#entries.delete(key)
    this.#entries.set(key, entry)
    if (this.#entries.size > MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!)
  }

  get size(): number {
    return this.#entries.size
  }
}

/**
 * The document for one response: the cached template (rendered without a theme) with
 * the visitor's theme on `<html>` and this response's nonce.
 */
export function documentFor(template: string, theme: 'light' | 'dark' | undefined, nonce: string): string {
  if (!template.startsWith(DOCUMENT_START)) throw new Error('A cached page does not start the way every document does')
  const themed = theme ? DOCUMENT_START + themeAttribute(theme) + template.slice(DOCUMENT_START.length) : template
  return themed.replaceAll(NONCE_PLACEHOLDER, nonce)
}

/** A cached page's ETag for one theme: each theme's document is a representation of its own. */
export function themedEtag(etag: string, theme: 'light' | 'dark' | undefined): string {
  return theme ? `${etag.slice(0, -1)}-${theme}"` : etag
}
