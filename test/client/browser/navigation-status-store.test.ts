import t from 'tap'
import { NavigationStatusStore } from '../../../client/framework/browser/navigation-status-store.js'

t.test('the status store tells its listeners of real changes only', async (t) => {
  const store = new NavigationStatusStore()
  let heard = 0
  const stop = store.subscribe(() => heard++)
  t.same(store.getState(), { slow: false, announcement: '' })
  store.setSlow(true)
  store.setSlow(true)
  t.equal(heard, 1, 'the same value twice is one change')
  store.announce('About')
  t.same(store.getState(), { slow: true, announcement: 'About' })
  t.equal(heard, 2)
  stop()
  store.setSlow(false)
  t.equal(heard, 2, 'no news after unsubscribing')
})
