/**
 * Loading a navigation's page, alone: supersession, the deadline, the slow notice.
 * Timers are the test's own, so time moves only when the test says.
 */
import t from 'tap'
import type { LoadResult } from '../../../client/framework/browser/load-page.js'
import { NavigationLoading, type Timers } from '../../../client/framework/browser/navigation-loading.js'

function manualTimers() {
  let now = 0
  const due = new Map<number, { at: number; run: () => void }>()
  let next = 0
  const timers: Timers = {
    set: (run, ms) => {
      due.set(++next, { at: now + ms, run })
      return next
    },
    clear: (handle) => void due.delete(handle as number),
  }
  const advance = async (ms: number) => {
    now += ms
    for (const [id, timer] of [...due]) {
      if (timer.at <= now) {
        due.delete(id)
        timer.run()
      }
    }
    await new Promise((resolve) => setImmediate(resolve))
  }
  return { timers, advance, pending: () => due.size }
}

/** Loads that stay pending until the test answers them. */
function loads() {
  const waiting = new Map<string, (result: LoadResult) => void>()
  const load = (key: string) => new Promise<LoadResult>((resolve) => waiting.set(key, resolve))
  const answer = (key: string, result: LoadResult = { kind: 'redirect', location: `/from${key}` }) => waiting.get(key)!(result)
  return { load, answer }
}

t.test('the current navigation gets its result; timers are cleared', async (t) => {
  const clock = manualTimers()
  const { load, answer } = loads()
  const loading = new NavigationLoading({ load, timeoutMs: 3800, slowMs: 150, onSlow: () => t.fail('not slow'), timers: clock.timers })
  const ticket = loading.begin()
  const result = loading.load('/a', ticket)
  answer('/a')
  t.same(await result, { kind: 'redirect', location: '/from/a' })
  t.equal(clock.pending(), 0, 'no timer left behind')
})

t.test('a newer navigation supersedes an older one, whose result is dropped', async (t) => {
  const clock = manualTimers()
  const { load, answer } = loads()
  const loading = new NavigationLoading({ load, timeoutMs: 3800, slowMs: 150, onSlow: () => {}, timers: clock.timers })
  const first = loading.load('/a', loading.begin())
  const second = loading.load('/b', loading.begin())
  answer('/a')
  answer('/b')
  t.equal(await first, undefined, 'superseded')
  t.ok(await second, 'the newer one counts')
  const third = loading.load('/c', loading.begin())
  const started = loading.started
  loading.begin() // back/forward
  answer('/c')
  t.equal(await third, undefined, 'a move through history supersedes too')
  t.equal(loading.started, started + 1, 'and counts as a navigation begun')
})

t.test('past the deadline the result is a reload', async (t) => {
  const clock = manualTimers()
  const { load } = loads()
  const loading = new NavigationLoading({ load, timeoutMs: 3800, slowMs: 150, onSlow: () => {}, timers: clock.timers })
  const result = loading.load('/slow', loading.begin())
  await clock.advance(3799)
  await clock.advance(1)
  t.same(await result, { kind: 'reload', reason: 'timed out' })
})

t.test('slow is reported once the current navigation passes the threshold, never for a superseded one', async (t) => {
  const clock = manualTimers()
  const { load, answer } = loads()
  let slow = 0
  const loading = new NavigationLoading({ load, timeoutMs: 3800, slowMs: 150, onSlow: () => slow++, timers: clock.timers })
  const old = loading.load('/a', loading.begin())
  await clock.advance(100)
  const current = loading.load('/b', loading.begin())
  await clock.advance(60)
  t.equal(slow, 0, "the superseded navigation's threshold passed: nothing")
  await clock.advance(100)
  t.equal(slow, 1, 'the current one is slow')
  answer('/a')
  answer('/b')
  await Promise.all([old, current])
})
