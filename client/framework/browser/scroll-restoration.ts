/**
 * Where the user lands once a navigation's page is on screen: scroll to the top or the
 * `#hash` after a push, back to where it was after back/forward, and focus on the
 * page's main element (so the next Tab starts there and screen readers follow). Each
 * history entry gets an id, so its scroll position survives moving away and back; the
 * positions are kept in the tab's session storage when the document is left, so a
 * reload, or Back from another site, returns to where the page was scrolled (the
 * browser's own restoration is off: it would scroll before a navigation's page is back).
 */
import { MAIN_ELEMENT_ID } from '../../../shared/framework/constants.js'

/** What arriving does to the document; replaceable in tests. */
export interface ScrollDocument {
  scrollY(): number
  scrollTo(y: number): void
  /** Scrolls to the element the hash names, or to the top when there is none. */
  scrollToHash(hash: string): void
  focusMain(): void
  /** Where the browser may have put the page on load, with its own restoration off: at the element the URL's `#hash` names, or at the top. */
  landingY(): number
  /** The positions kept for this tab by an earlier document (none when storage is unavailable). */
  savedPositions(): Array<[entry: string, scrollY: number]>
  savePositions(positions: Array<[entry: string, scrollY: number]>): void
}

/** How many entries' positions are kept across documents: the most recent ones. */
export const KEPT_POSITIONS = 50

type Pending = { readonly kind: 'push'; readonly hash: string } | { readonly kind: 'pop'; readonly scrollY: number }

export class ScrollRestoration {
  #entry: string
  #pending: Pending | undefined
  readonly #positions = new Map<string, number>()
  readonly #document: ScrollDocument

  /** `entry`: the id of the history entry on screen (from `history.state`), if it has one. */
  constructor(entry: string | undefined, document: ScrollDocument = browserDocument) {
    this.#entry = entry ?? newEntryId()
    this.#document = document
    for (const [id, y] of document.savedPositions()) this.#positions.set(id, y)
  }

  /** The id of the history entry on screen. */
  get entry(): string {
    return this.#entry
  }

  /** True while a scroll waits for its page to be shown. */
  get pending(): boolean {
    return this.#pending !== undefined
  }

  /** A new entry is about to be pushed: remembers this one's scroll; returns the new entry's id. */
  push(hash: string): string {
    this.#remember()
    this.#entry = newEntryId()
    this.#pending = { kind: 'push', hash }
    return this.#entry
  }

  /** Back/forward moved to the entry `id`: remembers the one left, and returns to where `id` was scrolled. */
  pop(id: string | undefined): void {
    this.#remember()
    this.#entry = id ?? newEntryId()
    this.#pending = { kind: 'pop', scrollY: this.#positions.get(this.#entry) ?? 0 }
  }

  /**
   * The browser moved to a new entry of the page on screen by itself (a plain `#hash`
   * link, `location.hash`) and scrolled as it does for one: remembers the entry left,
   * and returns an id for the new one. Nothing is pending: focus and scroll stay.
   */
  adopt(): string {
    this.#remember()
    this.#entry = newEntryId()
    this.#pending = undefined
    return this.#entry
  }

  /** The document is being left (a reload, another site, the tab closing): keeps every entry's position for when it comes back. */
  leave(): void {
    this.#remember()
    // Over what is kept already: another document of this tab may have saved since
    // this one was loaded (this one then came back from the back/forward cache).
    const kept = new Map(this.#document.savedPositions())
    for (const [id, y] of this.#positions) {
      kept.delete(id)
      kept.set(id, y)
    }
    this.#document.savePositions([...kept].slice(-KEPT_POSITIONS))
  }

  /**
   * The document was reloaded, or came back by Back/Forward from another one: back to
   * where this entry was scrolled. This runs once the page has hydrated; a page the
   * reader has scrolled by then (it is no longer where the browser may have put it on
   * load: the top, or the `#hash`'s element; Chromium leaves a reloaded page at the top)
   * stays where they took it, as the browser's own restoration leaves it.
   */
  restore(): void {
    const y = this.#positions.get(this.#entry)
    const at = this.#document.scrollY()
    if (y !== undefined && (at === 0 || Math.abs(at - this.#document.landingY()) < 2)) this.#document.scrollTo(y)
  }

  /** Records the entry on screen's position, as the most recent. */
  #remember(): void {
    this.#positions.delete(this.#entry)
    this.#positions.set(this.#entry, this.#document.scrollY())
  }

  /** The page is on screen: scroll and focus as the pending navigation says; false when none was pending. */
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

/** A `#hash` as an element id; a malformed one as it came (no element has it, so the top). */
function decodeHash(hash: string): string {
  try {
    return decodeURIComponent(hash)
  } catch {
    return hash
  }
}

/**
 * Scrolling and focusing need the new page laid out: done in the page's commit, they
 * forced a layout of the whole page inside it (10 ms for the 200-row list here), and the
 * frame laid it out again. Done just before the next frame renders, the page is laid
 * out once, and the first frame that shows it is already scrolled and focused.
 */
const waiting: Array<() => void> = []
let frame: number | undefined
function beforeNextFrame(action: () => void): void {
  waiting.push(action)
  frame ??= requestAnimationFrame(runWaiting)
}
/** Runs what waits for the next frame now: before reading a scroll position it would change. */
function runWaiting(): void {
  if (frame !== undefined) cancelAnimationFrame(frame)
  frame = undefined
  for (const action of waiting.splice(0)) action()
}

const browserDocument: ScrollDocument = {
  // Two navigations within one frame, or one in a hidden tab (no frames): the previous
  // navigation's scroll must land before this position is remembered.
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

/** The session storage key of the kept positions. */
const POSITIONS_KEY = 'app:scroll-positions'
