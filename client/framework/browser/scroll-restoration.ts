/**
 * Where the user lands once a navigation's page is on screen: scroll, and focus on
 * `<main>` so the next Tab starts there and screen readers follow. The
 * browser's own restoration is off (it would scroll before the page is back), so
 * positions are kept per history entry, and in session storage across documents.
 */
import { MAIN_ELEMENT_ID } from '../../../shared/framework/constants.js'

export interface ScrollDocument {
  scrollY(): number
  scrollTo(y: number): void
  scrollToHash(hash: string): void
  focusMain(): void
  /** Where the browser may have put the page on load: the `#hash`'s element, or the top. */
  landingY(): number
  savedPositions(): Array<[entry: string, scrollY: number]>
  savePositions(positions: Array<[entry: string, scrollY: number]>): void
}

export const KEPT_POSITIONS = 50

type Pending = { readonly kind: 'push'; readonly hash: string } | { readonly kind: 'pop'; readonly scrollY: number }

export class ScrollRestoration {
  #entry: string
  #pending: Pending | undefined
  readonly #positions = new Map<string, number>()
  readonly #document: ScrollDocument

  constructor(entry: string | undefined, document: ScrollDocument = browserDocument) {
    this.#entry = entry ?? newEntryId()
    this.#document = document
    for (const [id, y] of document.savedPositions()) this.#positions.set(id, y)
  }

  get entry(): string {
    return this.#entry
  }

  get pending(): boolean {
    return this.#pending !== undefined
  }

  push(hash: string): string {
    this.#remember()
    this.#entry = newEntryId()
    this.#pending = { kind: 'push', hash }
    return this.#entry
  }

  pop(id: string | undefined): void {
    this.#remember()
    this.#entry = id ?? newEntryId()
    this.#pending = { kind: 'pop', scrollY: this.#positions.get(this.#entry) ?? 0 }
  }

  /** The browser made a new entry by itself (a `#hash` link) and scrolled: nothing is pending. */
  adopt(): string {
    this.#remember()
    this.#entry = newEntryId()
    this.#pending = undefined
    return this.#entry
  }

  leave(): void {
    this.#remember()
    // Merge: another document of this tab may have saved since (this one came back from the bfcache).
    const kept = new Map(this.#document.savedPositions())
    for (const [id, y] of this.#positions) {
      kept.delete(id)
      kept.set(id, y)
    }
    this.#document.savePositions([...kept].slice(-KEPT_POSITIONS))
  }

  /**
   * Runs once hydrated; a page the reader has scrolled by then stays where they took it,
   * as the browser's own restoration leaves it (Chromium leaves a reloaded page at the top).
   */
  restore(): void {
    const y = this.#positions.get(this.#entry)
    const at = this.#document.scrollY()
    if (y !== undefined && (at === 0 || Math.abs(at - this.#document.landingY()) < 2)) this.#document.scrollTo(y)
  }

  #remember(): void {
    this.#positions.delete(this.#entry)
    this.#positions.set(this.#entry, this.#document.scrollY())
  }

  /** False when no navigation was pending. */
  pageShown(): boolean {
    const pending = this.#pending
    if (!pending) return false
    this.#pending = undefined
    if (pending.kind === 'pop') this.#document.scrollTo(pending.scrollY)
    else this.#document.scrollToHash(pending.hash)
    this.#document.focusMain()
    return true
  }
}

function newEntryId(): string {
  return Math.random().toString(36).slice(2)
}

/** A malformed `#hash` stays as it came: no element has it, so the top. */
function decodeHash(hash: string): string {
  try {
    return decodeURIComponent(hash)
  } catch {
    return hash
  }
}

/**
 * Scroll and focus just before the next frame, not in the page's commit: there they
 * forced a layout of the whole page (10 ms for the 200-row list), laid out again by the frame.
 */
const waiting: Array<() => void> = []
let frame: number | undefined
function beforeNextFrame(action: () => void): void {
  waiting.push(action)
  frame ??= requestAnimationFrame(runWaiting)
}
function runWaiting(): void {
  if (frame !== undefined) cancelAnimationFrame(frame)
  frame = undefined
  for (const action of waiting.splice(0)) action()
}

const browserDocument: ScrollDocument = {
  // Two navigations in one frame, or a hidden tab (no frames): the previous scroll lands first.
  scrollY: () => {
    runWaiting()
    return window.scrollY
  },
  scrollTo: (y) => beforeNextFrame(() => window.scrollTo(0, y)),
  scrollToHash(hash) {
    beforeNextFrame(() => {
      const id = hash ? decodeHash(hash.slice(1)) : ''
      const target = id ? document.getElementById(id) : null
      if (target) target.scrollIntoView()
      else window.scrollTo(0, 0)
    })
  },
  focusMain: () => beforeNextFrame(() => document.getElementById(MAIN_ELEMENT_ID)?.focus({ preventScroll: true })),
  landingY() {
    const id = location.hash ? decodeHash(location.hash.slice(1)) : ''
    const target = id ? document.getElementById(id) : null
    if (!target) return 0
    const top = target.getBoundingClientRect().top + window.scrollY - (parseFloat(getComputedStyle(target).scrollMarginTop) || 0)
    const bottom = document.documentElement.scrollHeight - window.innerHeight
    return Math.round(Math.max(0, Math.min(top, bottom)))
  },
  savedPositions() {
    try {
      const saved: unknown = JSON.parse(sessionStorage.getItem(POSITIONS_KEY) ?? '[]')
      return Array.isArray(saved) ? saved.filter((pair): pair is [string, number] => typeof pair?.[0] === 'string' && Number.isFinite(pair?.[1])) : []
    } catch {
      return [] // storage disabled, or something else wrote the key
    }
  },
  savePositions(positions) {
    try {
      sessionStorage.setItem(POSITIONS_KEY, JSON.stringify(positions))
    } catch {
      // storage disabled or full: positions are then kept for this document only
    }
  },
}

const POSITIONS_KEY = 'app:scroll-positions'
