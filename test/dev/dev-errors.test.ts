// test-needs: chromium
/**
 * `npm run dev`: what the open tab shows when an edit breaks the app, and that fixing
 * the edit brings the page back by itself. Each test runs the real command on its own
 * copy of the project and edits it as a developer would.
 */
import t from 'tap'
import { CLIENT_ERROR_TEXT } from '../../shared/framework/error-texts.js'
import { openPage, waitForHydration } from '../helpers/browser.js'
import { startDevServer } from '../helpers/dev-server.js'

const ABOUT_COMPONENT = 'function AboutPage({ data }: PageProps<typeof routes.about>) {'

t.test('a render error in a Fast Refresh update: the overlay names it, the fix renders the page in place', async (t) => {
  const dev = await startDevServer(t)
  // React's error boundary logs what it caught, as in production.
  const { page, documentRequests } = await openPage(t, {}, [/render exploded on purpose/])
  await page.goto(`${dev.origin}/about`)
  await waitForHydration(page)

  dev.edit('client/pages/about.tsx', (text) =>
    text.replace(ABOUT_COMPONENT, `${ABOUT_COMPONENT}\n  if (data) throw new Error('render exploded on purpose')`),
  )
  const overlay = page.locator('vite-error-overlay')
  await overlay.locator('.message-body').getByText('render exploded on purpose').waitFor()
  const stack = (await overlay.locator('.stack').textContent()) ?? ''
  t.match(stack, /client\/pages\/about\.tsx/, 'the stack points into the component')
  t.match(stack, /The above error occurred in:[^]*\bAboutPage\b/, 'and names the components it happened in')
  t.equal(await page.locator('h1').first().textContent(), CLIENT_ERROR_TEXT, "under it, the app's own error screen")
  t.same(documentRequests, [`${dev.origin}/about`], 'no reload')

  dev.edit('client/pages/about.tsx', (text) =>
    text.replace("\n  if (data) throw new Error('render exploded on purpose')", '').replace('<h1>About</h1>', '<h1>About (fixed)</h1>'),
  )
  await page.getByRole('heading', { name: 'About (fixed)' }).waitFor()
  t.equal(await overlay.count(), 0, 'the overlay is gone')
  t.same(documentRequests, [`${dev.origin}/about`], 'the page rendered again in place, no reload')
})
