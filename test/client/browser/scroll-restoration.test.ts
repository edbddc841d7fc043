/**
 * Scroll restoration, alone: where scroll and focus go once a navigation's page is on screen.
 */
import t from 'tap'
import { ScrollRestoration, KEPT_POSITIONS, type ScrollDocument } from '../../../client/framework/browser/scroll-restoration.js'

/** `storage`: the tab's session storage, shared by the documents a test creates in turn. */
function fakeDocument(storage: { positions: Array<[string, number]> } = { positions: [] }, landingY = 0) {
  const calls: string[] = []
  let scrollY = landingY
  const document: ScrollDocument = {
    scrollY: () => scrollY,
    scrollTo: (y) => {
      scrollY = y
      calls.push(`scrollTo ${y}`)
    },
    scrollToHash: (hash) => calls.push(`hash ${hash || '(top)'}`),
    focusMain: () => calls.push('focus main'),
    landingY: () => landingY,
    savedPositions: () => storage.positions,
    savePositions: (positions) => (storage.positions = positions),
  }
  return { document, calls, scrollAt: (y: number) => (scrollY = y) }
}

t.test('positions outlive the document: a reload, or Back from another site, returns to where the entry was', async (t) => {
  const storage = { positions: [] as Array<[string, number]> }
  const first = fakeDocument(storage)
  const scroll = new ScrollRestoration('a', first.document)
  first.scrollAt(700)
  const pushed = scroll.push('')
  scroll.pageShown()
  first.scrollAt(1500)
  scroll.leave() // pagehide
  t.same(
    new Map(storage.positions),
    new Map([
      ['a', 700],
      [pushed, 1500],
    ]),
    'every entry kept',
  )

  const reloaded = fakeDocument(storage)
  new ScrollRestoration(pushed, reloaded.document).restore()
  t.same(reloaded.calls, ['scrollTo 1500'], 'the reloaded entry goes back to where it was; focus stays where the browser put it')

  const back = fakeDocument(storage)
  const earlier = new ScrollRestoration('a', back.document)
  earlier.restore()
  t.same(back.calls, ['scrollTo 700'], 'so does an earlier entry reached by Back')

  const unknown = fakeDocument(storage)
  new ScrollRestoration('never-seen', unknown.document).restore()
  t.same(unknown.calls, [], 'an entry with no position stays where it is')

  const scrolledAlready = fakeDocument(storage)
  scrolledAlready.scrollAt(300) // the user scrolled while the page hydrated
  new ScrollRestoration(pushed, scrolledAlready.document).restore()
  t.same(scrolledAlready.calls, [], 'a page scrolled before the restore stays where it was scrolled to')

  const atTheSection = fakeDocument(storage, 400) // a #section URL: the browser put the page at its element
  new ScrollRestoration(pushed, atTheSection.document).restore()
  t.same(atTheSection.calls, ['scrollTo 1500'], "a #section URL's page the reader has not scrolled goes back to where it was")

  const atTheTop = fakeDocument(storage, 400)
  atTheTop.scrollAt(0) // a #section URL reloaded in Chromium: at the top
  new ScrollRestoration(pushed, atTheTop.document).restore()
  t.same(atTheTop.calls, ['scrollTo 1500'], 'so does one the browser left at the top')

  const pastTheSection = fakeDocument(storage, 400)
  pastTheSection.scrollAt(900)
  new ScrollRestoration(pushed, pastTheSection.document).restore()
  t.same(pastTheSection.calls, [], 'one the reader scrolled from the section stays')
})

t.test('only the most recent positions are kept across documents', async (t) => {
  const storage = { positions: [] as Array<[string, number]> }
  const { document, scrollAt } = fakeDocument(storage)
  const scroll = new ScrollRestoration('first', document)
  for (let i = 0; i < KEPT_POSITIONS + 10; i++) {
    scrollAt(i)
    scroll.push('')
  }
  scroll.leave()
  t.equal(storage.positions.length, KEPT_POSITIONS)
  t.notOk(
    storage.positions.some(([id]) => id === 'first'),
    'the oldest entry went first',
  )
})

t.test('nothing happens until a navigation is pending', async (t) => {
  const { document, calls } = fakeDocument()
  const scroll = new ScrollRestoration('first', document)
  t.equal(scroll.entry, 'first', 'the entry on screen keeps its id')
  t.notOk(scroll.pageShown())
  t.same(calls, [])
})

t.test('a push goes to the top or the hash, then focuses the page, once', async (t) => {
  const { document, calls } = fakeDocument()
  const scroll = new ScrollRestoration(undefined, document)
  const before = scroll.entry
  const entry = scroll.push('')
  t.not(entry, before, 'the pushed entry gets a new id')
  t.ok(scroll.pending)
  t.ok(scroll.pageShown())
  t.notOk(scroll.pageShown(), 'once')
  scroll.push('#section-2')
  scroll.pageShown()
  t.same(calls, ['hash (top)', 'focus main', 'hash #section-2', 'focus main'])
})

t.test('back and forward return each entry to where it was scrolled', async (t) => {
  const { document, calls, scrollAt } = fakeDocument()
  const scroll = new ScrollRestoration('a', document)
  scrollAt(400)
  const b = scroll.push('')
  scroll.pageShown()
  scrollAt(900)
  scroll.pop('a') // back to a
  scroll.pageShown()
  scroll.pop(b) // forward to b
  scroll.pageShown()
  scroll.pop('never-seen')
  scroll.pageShown()
  t.same(
    calls.filter((call) => call.startsWith('scrollTo')),
    ['scrollTo 400', 'scrollTo 900', 'scrollTo 0'],
  )
})

t.test('an entry the browser made itself (a plain #hash link) is adopted: no scroll, no focus, and Back returns to the one left', async (t) => {
  const { document, calls, scrollAt } = fakeDocument()
  const scroll = new ScrollRestoration('page', document)
  scrollAt(40)
  const fragment = scroll.adopt()
  t.not(fragment, 'page', 'the new entry gets an id of its own')
  t.notOk(scroll.pending, 'nothing to arrive at')
  t.notOk(scroll.pageShown())
  t.same(calls, [], 'the browser scrolled; focus stays')
  scrollAt(2400)
  scroll.pop('page')
  scroll.pageShown()
  t.same(calls, ['scrollTo 40', 'focus main'], 'Back: where the page was')
})

t.test('leaving keeps what another document of the tab saved since (a document back from the back/forward cache)', async (t) => {
  const storage = { positions: [] as Array<[string, number]> }
  const first = fakeDocument(storage)
  const restored = new ScrollRestoration('one', first.document)
  const second = fakeDocument(storage)
  const other = new ScrollRestoration('two', second.document)
  second.scrollAt(800)
  other.leave()
  first.scrollAt(300)
  restored.leave()
  t.same(
    new Map(storage.positions),
    new Map([
      ['two', 800],
      ['one', 300],
    ]),
    "both documents' entries are kept",
  )
})
