// test-needs: chromium
/**
 * One CSP behaviour for `style` attributes: what React renders as `style={...}` applies
 * on a server-rendered page as it does after a client render (decision 032), and the
 * CSP refuses nothing on the way.
 */
import t from 'tap'
import { browserTestApp } from '../helpers/app.js'
import { openPage, waitForHydration } from '../helpers/browser.js'
import { STYLED_COLOUR } from '../fixtures/app/pages/styled.js'

t.test('a style attribute applies whoever rendered it', async (t) => {
  const { origin } = await browserTestApp(t, 'fixture')
  const colour = (page: import('playwright-core').Page) => page.locator('.styled').evaluate((element) => getComputedStyle(element).color)

  const { page: plain, errors: plainErrors } = await openPage(t, { javaScriptEnabled: false })
  await plain.goto(`${origin}/styled`)
  t.equal(await colour(plain), STYLED_COLOUR, 'server-rendered, no JavaScript')
  t.same(plainErrors, [], 'no CSP violation')

  const { page, errors, documentRequests } = await openPage(t)
  await page.goto(`${origin}/styled`)
  await waitForHydration(page)
  t.equal(await colour(page), STYLED_COLOUR, 'server-rendered, hydrated')
  await page.getByRole('link', { name: 'Target' }).first().click()
  await page.getByRole('heading', { name: 'Target' }).waitFor()
  await page.goBack()
  await page.locator('.styled').waitFor()
  t.equal(await colour(page), STYLED_COLOUR, 'rendered by the browser after a client navigation')
  t.same(documentRequests, [`${origin}/styled`], 'that render was the client-side one')
  t.same(errors, [], 'no CSP violation')
})
