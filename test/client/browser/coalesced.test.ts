import t from 'tap'
import { coalesced } from '../../../client/framework/browser/coalesced.js'

t.test('a reload asked for while one runs runs once more after it, for everyone who asked meanwhile', async (t) => {
  const finishes: Array<() => void> = []
  let runs = 0
  const reload = coalesced(() => {
    runs++
    return new Promise<void>((resolve) => finishes.push(resolve))
  })
  const first = reload()
  const second = reload()
  const third = reload()
  t.equal(runs, 1, 'one at a time')
  t.equal(second, third, 'those who asked meanwhile share the next run')
  let secondDone = false
  void second.then(() => (secondDone = true))
  finishes[0]!()
  await first
  await Promise.resolve()
  t.equal(runs, 2, 'the next run starts once the first is over')
  t.notOk(secondDone, 'and those who asked meanwhile wait for it, not the first')
  finishes[1]!()
  await second
  t.equal(runs, 2)
  const later = reload()
  t.equal(runs, 3, 'asked when none runs: at once')
  finishes[2]!()
  await later
})

t.test('a run that fails does not stop the next', async (t) => {
  let runs = 0
  let fail!: (error: Error) => void
  const reload = coalesced(() => {
    runs++
    return runs === 1 ? new Promise<void>((_, reject) => (fail = reject)) : Promise.resolve()
  })
  const first = reload()
  const second = reload()
  fail(new Error('network'))
  await t.rejects(first)
  await second
  t.equal(runs, 2)
})
