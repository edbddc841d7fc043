import t from 'tap'
import { PrefetchQueue } from '../../../client/framework/browser/prefetch-queue.js'

/** A queue whose loads stay pending until the test settles them. */
function harness(settled: Set<string> = new Set()) {
  const started: string[] = []
  const pending = new Map<string, () => void>()
  let inFlight = 0
  let maxInFlight = 0
  const queue = new PrefetchQueue({
    load: (key) =>
      new Promise<void>((resolve) => {
        started.push(key)
        maxInFlight = Math.max(maxInFlight, ++inFlight)
        pending.set(key, () => {
          inFlight--
          settled.add(key)
          resolve()
        })
      }),
    isSettled: (key) => settled.has(key),
  })
  const finish = async (key: string) => {
    pending.get(key)!()
    pending.delete(key)
    await new Promise((resolve) => setImmediate(resolve))
  }
  return { queue, started, finish, max: () => maxInFlight }
}

t.test('at most 5 loads run at once, the rest wait first in, first out', async (t) => {
  const { queue, started, finish, max } = harness()
  const keys = Array.from({ length: 20 }, (_, i) => `/p/${i}`)
  for (const key of keys) queue.add(key)
  t.same(started, keys.slice(0, 5))
  t.equal(queue.inFlight, 5)
  for (let done = 0; done < 20; done++) await finish(started[done]!)
  t.same(started, keys, 'all 20 ran, in order')
  t.equal(max(), 5)
  t.equal(queue.inFlight, 0)
})

t.test('intent puts a waiting key first', async (t) => {
  const { queue, started, finish } = harness()
  for (let i = 0; i < 8; i++) queue.add(`/p/${i}`)
  queue.add('/p/7', true)
  queue.add('/hovered', true)
  await finish('/p/0')
  await finish('/p/1')
  t.same(started.slice(5), ['/hovered', '/p/7'])
})

t.test('a dropped key never starts; a started one is not affected', async (t) => {
  const { queue, started, finish } = harness()
  for (let i = 0; i < 7; i++) queue.add(`/p/${i}`)
  queue.drop('/p/5')
  queue.drop('/p/0')
  await finish('/p/0')
  await finish('/p/1')
  t.same(started, ['/p/0', '/p/1', '/p/2', '/p/3', '/p/4', '/p/6'])
})

t.test('keys already settled (fresh or loading) are never loaded again', async (t) => {
  const { queue, started } = harness(new Set(['/cached']))
  queue.add('/cached')
  queue.add('/new')
  queue.add('/new')
  queue.add('/new', true)
  t.same(started, ['/new'])
})
