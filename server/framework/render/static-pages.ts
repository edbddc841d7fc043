/**
 * Static routes rendered once, served from memory: their data does not depend on the
 * request, so the first response for a URL serves every later one until the process ends.
 * The document is kept without the product's `<html>` attributes (each visitor gets
 * theirs) and compressed once per attributes and encoding; it has no CSP nonce, so it is
 * the same bytes for everyone (decision 016). Query strings make URLs unbounded: the least
 * recently used entry goes first.
 */
import { compressOnce, type Encoding } from '../compression.js'
import { createHash } from 'node:crypto'
import { DOCUMENT_START } from './document.js'

/** The product's `<html>` attributes for one visitor, as HTML. */
type HtmlAttributes = string

const MAX_ENTRIES = 500

export interface StaticPage {
  /** Without the product's attributes on `<html>`. */
  readonly template: string
  readonly routeId: string | undefined
  readonly etag: string
  /** By `<html>` attributes and encoding, made on first use (shared while being made). */
  readonly encoded: Map<string, Promise<Buffer>>
}

export interface StaticData {
  readonly json: string
  readonly routeId: string | undefined
  readonly etag: string
}

export class StaticCache<Entry> {
  readonly #entries = new Map<string, Entry>()
  readonly #weigh: (entry: Entry) => number
  #bytes = 0

  constructor(weigh: (entry: Entry) => number) {
    this.#weigh = weigh
  }

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
    this.#remove(key)
    this.#entries.set(key, entry)
    this.#bytes += this.#weigh(entry)
    if (this.#entries.size > MAX_ENTRIES) this.#remove(this.#entries.keys().next().value!)
  }

  #remove(key: string): void {
    const entry = this.#entries.get(key)
    if (entry === undefined) return
    this.#bytes -= this.#weigh(entry)
    this.#entries.delete(key)
  }

  get size(): number {
    return this.#entries.size
  }

  get bytes(): number {
    return this.#bytes
  }
}

export function documentFor(page: StaticPage, attributes: HtmlAttributes): string {
  const { template } = page
  if (!template.startsWith(DOCUMENT_START)) throw new Error('A cached page does not start the way every document does')
  return attributes ? DOCUMENT_START + attributes + template.slice(DOCUMENT_START.length) : template
}

export function encodedDocumentFor(page: StaticPage, attributes: HtmlAttributes, encoding: Encoding): Promise<Buffer> {
  const key = `${attributes} ${encoding}`
  let body = page.encoded.get(key)
  if (!body) {
    body = compressOnce(documentFor(page, attributes), encoding)
    page.encoded.set(key, body)
  }
  return body
}

/** Each set of attributes and encoding is a representation of its own. */
export function staticEtag(etag: string, attributes: HtmlAttributes, encoding: Encoding | undefined): string {
  const suffix = [attributes && attributesTag(attributes), encoding].filter(Boolean).join('-')
  return suffix ? `${etag.slice(0, -1)}-${suffix}"` : etag
}

function attributesTag(attributes: HtmlAttributes): string {
  return createHash('sha256').update(attributes).digest('base64url').slice(0, 8)
}
