/**
 * Arrival, alone: where scroll and focus go once a navigation's page is on screen.
 */
import t from 'tap'
import { Arrival, type ArrivalDocument } from '../../../client/browser/arrival.js'

function fakeDocument() {
  const calls: string[] = []
  let scrollY = 0
  const document: ArrivalDocument = {
    scrollY: () => scrollY,
    scrollTo: (y) => {
      scrollY = y
      calls.push(`scrollTo ${y}`)
    },
    scrollToHash: (hash) => calls.push(`hash ${hash || '(top)'}`),
    focusMain: () => calls.push('focus main'),
  }
  return { document, calls, scrollBy: (y: number) => (scrollY = y) }
}

t.test('nothing happens until a navigation is pending', async (t) => {
  const { document, calls } = fakeDocument()
  const arrival = new Arrival('first', document)
  t.equal(arrival.entry, 'first', 'the entry on screen keeps its id')
  t.notOk(arrival.arrive())
  t.same(calls, [])
})

t.test('a push goes to the top or the hash, then focuses the page, once', async (t) => {
  const { document, calls } = fakeDocument()
  const arrival = new Arrival(undefined, document)
  const before = arrival.entry
  const entry = arrival.push('')
  t.not(entry, before, 'the pushed entry gets a new id')
  t.ok(arrival.pending)
  t.ok(arrival.arrive())
  t.notOk(arrival.arrive(), 'once')
  arrival.push('#section-2')
  arrival.arrive()
  t.same(calls, ['hash (top)', 'focus main', 'hash #section-2', 'focus main'])
})

t.test('back and forward return each entry to where it was scrolled', async (t) => {
  const { document, calls, scrollBy } = fakeDocument()
  const arrival = new Arrival('a', document)
  scrollBy(400)
  const b = arrival.push('')
  arrival.arrive()
  scrollBy(900)
  arrival.pop('a') // back to a
  arrival.arrive()
  arrival.pop(b) // forward to b
  arrival.arrive()
  arrival.pop('never-seen')
  arrival.arrive()
  t.same(calls.filter((call) => call.startsWith('scrollTo')), ['scrollTo 400', 'scrollTo 900', 'scrollTo 0'])
})
