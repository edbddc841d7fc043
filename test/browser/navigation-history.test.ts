// test-needs: chromium
/**
 * What a navigation does to the page around it, in Chromium (docs/architecture.md,
 * "Navigation"): scroll on push, back, forward and reload; focus, title and
 * announcement; history entries for links to the page on screen and in-page links.
 * The engine's requests, cache and fallbacks: navigation.test.ts.
 */
import type { Page } from 'playwright-core'
import t from 'tap'
import { browserTestApp } from '../helpers/app.js'
import { settle, waitForHydration } from '../helpers/browser.js'
import { navigationPages } from '../helpers/navigation.js'

/**
 * The page's scroll position once it is `y`, or wherever it is after 10 s: an
 * assertion on it then names the position found, not just a timeout.
 */
async function scrollOnceAt(page: Page, y: number): Promise<number> {
  await page.waitForFunction((y) => Math.round(window.scrollY) === y, y, { timeout: 10_000 }).catch(() => {})
  return page.evaluate(() => Math.round(window.scrollY))
}

t.test('scroll, focus and history', async (t) => {
  const { origin, build } = await browserTestApp(t, 'fixture')
  const { open } = navigationPages(origin, build.manifest)

  t.test('scroll goes to the top on push and back on back/forward; title, focus and announcement follow', async (t) => {
    const tracked = await open(t, '/long')
    const { page } = tracked
    const link = page.getByRole('link', { name: 'Target from the bottom' })
    await link.scrollIntoViewIfNeeded()
    const scrolled = await page.evaluate(() => window.scrollY)
    t.ok(scrolled > 1000, `scrolled down (${scrolled}px)`)

    // What the first frame showing the new page looks like: a frame callback queued when
    // the new heading appears runs just before that frame renders.
    const firstFrame = page.evaluate(
      () =>
        new Promise<{ scrollY: number; focused: string | undefined }>((resolve) => {
          const observer = new MutationObserver(() => {
            if (document.querySelector('h1')?.textContent !== 'Target') return
            observer.disconnect()
            requestAnimationFrame(() => resolve({ scrollY: window.scrollY, focused: document.activeElement?.id }))
          })
          observer.observe(document.body, { subtree: true, childList: true, characterData: true })
        }),
    )
    // The next page taller than the window: where it starts is the engine's doing, not
    // the browser clamping a short page to the top.
    await page.evaluate(() => (document.documentElement.style.minHeight = '5000px'))
    await link.click()
    await page.locator('h1', { hasText: 'Target' }).waitFor()
    const frame = await firstFrame
    t.equal(frame.scrollY, 0, 'the first frame of the new page is at the top')
    t.equal(frame.focused, 'main', 'and has the focus on the page')
    t.equal(await page.evaluate(() => window.scrollY), 0, 'the new page starts at the top')
    t.equal(await page.title(), 'Target: Fixture target')
    t.equal(await page.evaluate(() => document.activeElement?.id), 'main', 'focus moved to the page')
    t.equal(await page.locator('#route-announcer').textContent(), 'Target: Fixture target', 'announced')
    t.equal(await page.locator('#route-announcer').getAttribute('aria-live'), 'polite')
    await page.evaluate(() => window.scrollTo(0, 700))
    t.equal(await scrollOnceAt(page, 700), 700, 'the new page scrolled')

    await page.goBack()
    await page.locator('h1', { hasText: 'Long' }).waitFor()
    await page.waitForFunction((y) => window.scrollY === y, scrolled)
    t.equal(await page.title(), 'Long')
    await page.goForward()
    await page.locator('h1', { hasText: 'Target' }).waitFor()
    t.equal(await scrollOnceAt(page, 700), 700, 'Forward: the page a link opened is where it was left')
    t.same(tracked.documentRequests, [`${origin}/long`])
    t.same(tracked.errors, [])
  })

  t.test('a reload, and Back from another document, return to where the page was scrolled', async (t) => {
    const tracked = await open(t, '/long')
    const { page } = tracked
    await page.evaluate(() => window.scrollTo(0, 1500))
    t.equal(await scrollOnceAt(page, 1500), 1500, 'scrolled')
    await page.reload()
    await waitForHydration(page)
    t.equal(await scrollOnceAt(page, 1500), 1500, 'the reloaded page is back where it was')

    await page.evaluate(() => window.scrollTo(0, 900))
    t.equal(await scrollOnceAt(page, 900), 900, 'scrolled')
    await page.goto(`${origin}/target`) // a document load, not a client-side navigation
    await page.goBack()
    await waitForHydration(page)
    t.equal(await scrollOnceAt(page, 900), 900, 'Back from the other document is where it was')
  })

  t.test('a reload of a #section URL returns to where the page was scrolled, not to the section', async (t) => {
    const { page } = await open(t, '/long#section')
    const past = await page.evaluate(() => Math.round(document.getElementById('section')!.getBoundingClientRect().top + window.scrollY) + 600)
    await page.evaluate((y) => window.scrollTo(0, y), past)
    t.equal(await scrollOnceAt(page, past), past, 'scrolled past the section')
    await page.reload()
    await waitForHydration(page)
    t.equal(await scrollOnceAt(page, past), past, 'the reloaded page is back where it was')
  })

  t.test('a link to /page#hash scrolls to that element', async (t) => {
    const tracked = await open(t, '/target')
    await tracked.page.getByRole('link', { name: 'Long section' }).click()
    await tracked.page.locator('h1', { hasText: 'Long' }).waitFor()
    t.equal(tracked.page.url(), `${origin}/long#section`)
    const top = await tracked.page.evaluate(() => document.getElementById('section')!.getBoundingClientRect().top)
    t.ok(Math.abs(top) < 2, `the section is at the top of the viewport (${top}px)`)
  })

  t.test('a link to the page on screen replaces its history entry, and shows the page loaded again; Back then leaves the page', async (t) => {
    const tracked = await open(t, '/', async ({ page }) => page.clock.install())
    await tracked.page.getByRole('link', { name: 'Target', exact: true }).click()
    await tracked.page.locator('h1', { hasText: 'Target' }).waitFor()
    const length = await tracked.page.evaluate(() => history.length)
    // Stale by then, so the click loads the page again; its answer says so.
    await tracked.page.clock.fastForward(31_000)
    await tracked.page.route(`${origin}/_data/target`, async (route) => {
      const answer = await route.fetch()
      const payload = await answer.json()
      await route.fulfill({ response: answer, json: { ...payload, data: { ...payload.data, text: 'loaded again' } } })
    })
    await tracked.page.getByRole('link', { name: 'Target', exact: true }).click()
    await tracked.page
      .locator('p.text', { hasText: 'loaded again' })
      .waitFor({ timeout: 10_000 })
      .catch(() => {})
    t.equal(await tracked.page.locator('p.text').textContent(), 'loaded again', 'the page loaded again is on screen')
    t.equal(await tracked.page.evaluate(() => history.length), length, 'no entry was added')
    t.equal(tracked.page.url(), `${origin}/target`)
    await tracked.page.goBack()
    await tracked.page.locator('h1', { hasText: 'Start' }).waitFor()
    t.equal(tracked.page.url(), `${origin}/`, 'one Back leaves the page')
  })

  t.test('a link whose redirect lands on the page on screen adds an entry, as a browser does', async (t) => {
    const { page } = await open(t, '/target')
    const length = await page.evaluate(() => history.length)
    await page.getByRole('link', { name: 'Moved', exact: true }).click() // /moved -> /target
    await page.locator('#route-announcer', { hasText: 'Target' }).waitFor()
    t.equal(await page.evaluate(() => history.length), length + 1, 'an entry was added')
    t.equal(page.url(), `${origin}/target`)
  })

  t.test("a plain in-page link (#section) is the browser's: it scrolls there, the page and focus stay; Back and Forward return", async (t) => {
    const tracked = await open(t, '/long')
    const { page } = tracked
    const sectionTop = () => page.evaluate(() => document.getElementById('section')!.getBoundingClientRect().top)
    await page.evaluate(() => window.scrollTo(0, 40))
    t.equal(await scrollOnceAt(page, 40), 40, 'scrolled')
    await page.getByRole('link', { name: 'To the section' }).click()
    await page.waitForURL(`${origin}/long#section`)
    await settle(tracked)
    t.ok(Math.abs(await sectionTop()) < 2, 'the section is at the top of the viewport')
    t.not(await page.evaluate(() => document.activeElement?.id), 'main', 'focus did not move to the page')
    t.equal(await page.locator('#route-announcer').textContent(), '', 'nothing announced')

    await page.goBack()
    await page.waitForURL(`${origin}/long`)
    t.equal(await scrollOnceAt(page, 40), 40, 'Back: where the page was before the link')
    const sectionY = await page.evaluate(() => Math.round(document.getElementById('section')!.getBoundingClientRect().top + window.scrollY))
    await page.goForward()
    await page.waitForURL(`${origin}/long#section`)
    t.equal(await scrollOnceAt(page, sectionY), sectionY, 'Forward: the section again')
    t.same(tracked.documentRequests, [`${origin}/long`], 'all within the document')
  })
})
