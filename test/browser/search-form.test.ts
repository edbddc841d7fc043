// test-needs: chromium
/**
 * A search form in Chromium (the demo's tag choice on `/items/:id/stats`): with script,
 * a client navigation to the query `href()` would write, no document load; Back shows
 * the fields of the page it reaches.
 */
import t from 'tap'
import { browserTestApp } from '../helpers/app.js'
import { openPage, waitForHydration } from '../helpers/browser.js'

t.test('the tag form of the statistics page', async (t) => {
  const { origin } = await browserTestApp(t, 'production', { config: { demoSlowMs: 0 } })

  t.test('a choice sent is a client navigation with the typed query; the default leaves it out', async (t) => {
    const { page, documentRequests, dataRequests } = await openPage(t)
    await page.goto(`${origin}/items/7/stats`)
    await waitForHydration(page)
    const tags = page.getByLabel('Tags listed')
    const listed = page.locator('.slow-statistics p')
    await tags.selectOption('3')
    await page.getByRole('button', { name: 'Show' }).click()
    await page.waitForURL(`${origin}/items/7/stats?tags=3`)
    await listed.filter({ hasText: /^Tags: [^,]+, [^,]+, [^,]+$/ }).waitFor()
    t.ok(dataRequests.includes(`${origin}/_data/items/7/stats?tags=3`), 'its page data fetched')

    await tags.selectOption('12')
    await page.getByRole('button', { name: 'Show' }).click()
    await page.waitForURL(`${origin}/items/7/stats`)
    await listed.filter({ hasText: /^Tags: ([^,]+, ){11}[^,]+$/ }).waitFor()
    t.equal(new URL(page.url()).search, '', 'the default: the URL carries no query')
    t.match(await listed.textContent(), /^Tags: ([^,]+, ){11}[^,]+$/, 'and every tag is listed')

    await page.goBack()
    await page.waitForURL(`${origin}/items/7/stats?tags=3`)
    await listed.filter({ hasText: /^Tags: [^,]+, [^,]+, [^,]+$/ }).waitFor()
    t.equal(await tags.inputValue(), '3', 'Back: the form shows the query on screen')
    t.same(documentRequests, [`${origin}/items/7/stats`], 'no document load')
  })
})
