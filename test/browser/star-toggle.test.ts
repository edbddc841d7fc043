// test-needs: chromium
/**
 * An action without navigation in Chromium: the demo's "Star this list" toggle
 * (useAction), with the server's answers held by a gate the test opens. It shows the
 * new state at once, posts once, loads the page on screen once, stays pending until the
 * sidebar (layout data) shows the change, puts the old state back when refused or when
 * it fails, ends in the last of two quick toggles' state, and works without JavaScript.
 */
import type { Page } from 'playwright-core'
import t from 'tap'
import { browserTestApp } from '../helpers/app.js'
import { openPage, waitForHydration } from '../helpers/browser.js'
import { gate } from '../helpers/gate.js'

const toggle = (page: Page) => page.getByRole('button', { name: 'Star this list' })
const pressed = async (page: Page) => (await toggle(page).getAttribute('aria-pressed')) === 'true'
const sidebarStarred = (page: Page) => page.getByRole('complementary', { name: 'Item lists' }).locator('li.starred a').allTextContents()
/** The star the toggle shows: drawn by the stylesheet, so read from its `::before`. */
const shownStar = (page: Page) =>
  toggle(page)
    .locator('.star-glyph')
    .evaluate((glyph) => getComputedStyle(glyph, '::before').content)

/** Records, in the page, what the sidebar marked when the toggle's form stopped being busy. */
async function watchPendingEnd(page: Page): Promise<void> {
  await page.evaluate(() => {
    const form = document.querySelector('form.star-toggle')!
    const ends: string[][] = []
    ;(window as unknown as { pendingEnds: string[][] }).pendingEnds = ends
    new MutationObserver(() => {
      if (form.getAttribute('aria-busy') !== 'false') return
      ends.push([...document.querySelectorAll('aside li.starred a')].map((a) => a.textContent ?? ''))
    }).observe(form, { attributes: true, attributeFilter: ['aria-busy'] })
  })
}
const pendingEnds = (page: Page) => page.evaluate(() => (window as unknown as { pendingEnds: string[][] }).pendingEnds)

t.test('the star toggle', async (t) => {
  const { origin } = await browserTestApp(t)

  t.test('shows the new state at once and stays pending until the sidebar shows it', async (t) => {
    const tracked = await openPage(t)
    const { page, documentRequests, dataRequests } = tracked
    await page.goto(`${origin}/about`) // cached, in another layout: the star does not reach it
    await waitForHydration(page)
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Items' }).click()
    await page.getByRole('heading', { name: 'Item list 1' }).waitFor()
    await page.getByRole('link', { name: 'Item list 3' }).click()
    await page.getByRole('heading', { name: 'Item list 3' }).waitFor()
    await page.getByRole('link', { name: 'Item list 7' }).click()
    await page.getByRole('heading', { name: 'Item list 7' }).waitFor()
    await watchPendingEnd(page)
    const documents = documentRequests.length
    const posts = await gate(page, `${origin}/items/7`, 'POST')
    const refreshes = await gate(page, `${origin}/_data/items/7`, 'GET')
    t.notOk(await pressed(page))
    t.equal(await shownStar(page), '"☆"', 'an empty star')

    await toggle(page).click()
    t.ok(await pressed(page), 'the star is on at once')
    t.equal(await shownStar(page), '"★"', 'a full star')
    await posts.seen(1)
    t.equal(await page.locator('form.star-toggle').getAttribute('aria-busy'), 'true', 'pending while the post is held')
    t.same(await sidebarStarred(page), [], 'the sidebar shows what the server has: not yet')
    await posts.release(0)
    await refreshes.seen(1)
    t.ok(await pressed(page), 'still on while the page is loaded again')
    t.equal(await page.locator('form.star-toggle').getAttribute('aria-busy'), 'true', 'still pending: the refreshed data is not on screen')
    await refreshes.release(0)
    await page.locator('form.star-toggle[aria-busy="false"]').waitFor()
    t.same(await pendingEnds(page), [['Item list 7']], 'pending ended with the sidebar marking list 7, not before')
    const mark = page.getByRole('complementary', { name: 'Item lists' }).getByRole('img', { name: 'starred' })
    t.equal(await mark.evaluate((element) => getComputedStyle(element, '::before').content), '"★"', 'the sidebar marks it with a star')
    t.ok(await pressed(page), 'on, from the data now')
    t.equal(posts.count, 1, 'one post')
    t.equal(refreshes.count, 1, 'one load of the page on screen')
    t.equal(documentRequests.length, documents, 'no document load')

    const aboutLoads = dataRequests.filter((url) => url.endsWith('/_data/about')).length
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'About' }).click()
    await page.getByRole('heading', { name: 'About' }).waitFor()
    t.equal(dataRequests.filter((url) => url.endsWith('/_data/about')).length, aboutLoads, 'a page the action did not reach stays cached')
    await page.goBack()
    await page.getByRole('heading', { name: 'Item list 7' }).waitFor()
    await page.goBack()
    await page.getByRole('heading', { name: 'Item list 3' }).waitFor()
    t.same(await sidebarStarred(page), ['Item list 7'], 'Back to a page cached before the change shows the change')
    t.equal(documentRequests.length, documents, 'no document load')
  })

  t.test('a page still loading when the action answers is asked for again, never shown as it came', async (t) => {
    const { page } = await openPage(t)
    await page.goto(`${origin}/items/8`)
    await waitForHydration(page)
    const prefetches = await gate(page, `${origin}/_data/items/2`, 'GET')
    await page.getByRole('link', { name: 'Item list 2', exact: true }).hover() // a prefetch, answered before the star
    await prefetches.seen(1)
    await toggle(page).click()
    await page.locator('form.star-toggle[aria-busy="false"]').waitFor()
    await prefetches.open() // the answer from before the change lands now
    t.equal(prefetches.count, 1, 'one prefetch so far, answered as the server had it before the star')
    await page.getByRole('link', { name: 'Item list 2', exact: true }).click()
    await page.getByRole('heading', { name: 'Item list 2' }).waitFor()
    t.same(await sidebarStarred(page), ['Item list 8'], 'the sidebar shows the star')
    t.equal(prefetches.count, 2, 'the page was asked for again after the change')
  })

  t.test('a refused or failed toggle puts the old state back', async (t) => {
    const { page } = await openPage(t, {}, [/status of 503/])
    await page.goto(`${origin}/items/4`)
    await waitForHydration(page)
    const posts = await gate(page, `${origin}/items/4`, 'POST')
    // Refused by the server: a list that does not exist.
    await page.locator('form.star-toggle input[name="id"]').evaluate((input: HTMLInputElement) => (input.value = '99'))
    await toggle(page).click()
    t.ok(await pressed(page), 'on while sent')
    await posts.release(0)
    await page.getByRole('alert').filter({ hasText: 'There is no such list to star.' }).waitFor()
    t.notOk(await pressed(page), 'refused: off again')
    t.same(await sidebarStarred(page), [])

    // A failure: the server is down for a moment.
    await page.route(`${origin}/items/4`, (route) =>
      route.request().method() === 'POST'
        ? route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: { message: 'Down for a moment.' } }) })
        : route.fallback(),
    )
    await page.locator('form.star-toggle input[name="id"]').evaluate((input: HTMLInputElement) => (input.value = '4'))
    await toggle(page).click()
    await page.getByRole('alert').filter({ hasText: 'Down for a moment.' }).waitFor()
    t.notOk(await pressed(page), 'failed: off again')
  })

  t.test('two quick toggles end in the last one’s state', async (t) => {
    const { page } = await openPage(t)
    await page.goto(`${origin}/items/5`)
    await waitForHydration(page)
    const posts = await gate(page, `${origin}/items/5`, 'POST')
    const refreshes = await gate(page, `${origin}/_data/items/5`, 'GET')
    await toggle(page).click()
    t.ok(await pressed(page), 'on')
    await toggle(page).click()
    t.notOk(await pressed(page), 'off again at once')
    // One after the other, so the second carries the session the first answered with.
    await posts.seen(1)
    await posts.release(0)
    t.notOk(await pressed(page), 'the first answer does not show its state: the second decides')
    await posts.seen(2)
    await posts.release(1)
    await refreshes.open()
    await page.locator('form.star-toggle[aria-busy="false"]').waitFor()
    t.notOk(await pressed(page), 'off, as last asked')
    t.equal(refreshes.count, 1, 'the page loaded again once, after the last')
    t.same(await sidebarStarred(page), [], 'and the server agrees')
    await page.reload()
    t.notOk(await pressed(page), 'after a reload too')
  })

  t.test('without JavaScript: the same form posts and comes back to the page', async (t) => {
    const { page, documentRequests } = await openPage(t, { javaScriptEnabled: false })
    await page.goto(`${origin}/items/6`)
    await toggle(page).click()
    await page.locator('aside li.starred').waitFor()
    t.same(await sidebarStarred(page), ['Item list 6'])
    t.ok(await pressed(page))
    t.equal(page.url(), `${origin}/items/6`, 'back on the page (303)')
    await toggle(page).click()
    await page.locator('aside li.starred').waitFor({ state: 'detached' })
    t.notOk(await pressed(page))
    t.same(documentRequests, [`${origin}/items/6`, `${origin}/items/6`, `${origin}/items/6`, `${origin}/items/6`, `${origin}/items/6`])
  })
})
