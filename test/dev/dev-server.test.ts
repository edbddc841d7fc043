/**
 * `npm run dev` (issue 7): the same app served with Vite. Each test runs the real
 * command on its own copy of the project and edits that copy as a developer would.
 */
import t from 'tap'
import { openPage, waitForHydration } from '../helpers/browser.js'
import { startDevServer } from '../helpers/dev-server.js'

t.test('an edit to a page component shows up in place, keeping component state', async (t) => {
  const dev = await startDevServer(t)
  const { page, errors, documentRequests } = await openPage(t)
  await page.goto(`${dev.origin}/items/7`)
  await waitForHydration(page)
  const counter = page.locator('button.counter')
  for (let i = 0; i < 3; i++) await counter.click()
  await page.getByText('Clicked 3 times').waitFor()

  dev.edit('client/pages/items.tsx', (text) => text.replace('<h1>{data.title}</h1>', '<h1>{data.title} (edited)</h1>'))
  await page.getByRole('heading', { name: 'Item list 7 (edited)' }).waitFor()
  t.equal(await counter.textContent(), 'Clicked 3 times', 'the counter kept its state')
  t.same(documentRequests, [`${dev.origin}/items/7`], 'no reload')
  t.same(errors, [])
})
