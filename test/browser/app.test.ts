// test-needs: chromium
/**
 * The example screens in real Chromium, against a listening server and the production
 * client build: hydration, client-side navigation, history, the not-found page.
 */
import t from 'tap'
import { browserTestApp } from '../helpers/app.js'
import { openPage, waitForHydration } from '../helpers/browser.js'

t.test('the example screens in Chromium', async (t) => {
  const { origin } = await browserTestApp(t)

  t.test('/items/7 hydrates without a console error and the counter counts', async (t) => {
    const { page, errors } = await openPage(t)
    // Counts elements taken out of the document from the first byte on: hydration adopts the
    // server's elements, where a client render would replace them.
    await page.addInitScript(() => {
      const removed = { count: 0 }
      ;(window as unknown as { elementsRemoved: typeof removed }).elementsRemoved = removed
      new MutationObserver((records) => {
        for (const record of records)
          for (const node of record.removedNodes) if (node instanceof Element && node.tagName !== 'SCRIPT') removed.count++
      }).observe(document, { childList: true, subtree: true })
    })
    const response = await page.goto(`${origin}/items/7`)
    t.equal(response?.status(), 200)
    await waitForHydration(page)
    t.equal(await page.locator('tbody tr').count(), 200)
    const removed = await page.evaluate(() => (window as unknown as { elementsRemoved: { count: number } }).elementsRemoved.count)
    t.equal(removed, 0, "hydration adopted the server's elements, none replaced")
    const counter = page.locator('button.counter')
    await counter.click()
    await counter.click()
    await page.locator('button.counter', { hasText: 'Clicked 2 times' }).waitFor()
    t.same(errors, [], 'no console error')
  })

  t.test('a page hydrates in the task that runs its scripts, before DOMContentLoaded', async (t) => {
    // The page's chunk is the document's script: it hands its module to the entry as it
    // runs, so no dynamic import (a task later, behind DOMContentLoaded) holds hydration up.
    for (const path of ['/about', '/items/7']) {
      const { page, errors } = await openPage(t)
      await page.goto(`${origin}${path}`)
      await waitForHydration(page)
      const timing = await page.evaluate(() => ({
        hydrated: performance.getEntriesByName('app:hydrated')[0]!.startTime,
        domContentLoaded: (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).domContentLoadedEventStart,
      }))
      t.ok(
        timing.hydrated <= timing.domContentLoaded,
        `${path}: hydrated at ${timing.hydrated} ms, DOMContentLoaded at ${timing.domContentLoaded} ms`,
      )
      t.same(errors, [], `${path}: no console error`)
    }
  })

  t.test('a link click swaps the page client-side, without a document request', async (t) => {
    const { page, errors, documentRequests, dataRequests } = await openPage(t)
    await page.goto(`${origin}/items/7`)
    await waitForHydration(page)
    await page.evaluate(() => ((window as any).__survivor = 'still here'))

    await page.getByRole('link', { name: 'Item list 2' }).click()
    await page.locator('h1', { hasText: 'Item list 2' }).waitFor()
    t.equal(page.url(), `${origin}/items/2`)
    t.equal(await page.title(), 'Item list 2')
    t.equal(await page.locator('tbody tr').first().locator('td').nth(1).textContent(), 'row-2-0')
    t.equal(await page.evaluate(() => (window as any).__survivor), 'still here', 'same document')
    t.same(documentRequests, [`${origin}/items/7`], 'only the first page was a document load')
    t.equal(dataRequests.filter((url) => url === `${origin}/_data/items/2`).length, 1, 'the new page came as page data, once')
    t.same(errors, [])
  })

  t.test('back and forward show the right pages without document loads', async (t) => {
    const { page, errors, documentRequests } = await openPage(t)
    await page.goto(`${origin}/`)
    await waitForHydration(page)
    await page.locator('main').getByRole('link', { name: 'About' }).click()
    await page.locator('h1', { hasText: 'About' }).waitFor()
    await page.getByRole('link', { name: 'See item list 1' }).click()
    await page.locator('h1', { hasText: 'Item list 1' }).waitFor()

    await page.goBack()
    await page.locator('h1', { hasText: 'About' }).waitFor()
    t.equal(page.url(), `${origin}/about`)
    t.equal(await page.title(), 'About')
    await page.goBack()
    await page.locator('h1', { hasText: 'Server-rendered React on Fastify' }).waitFor()
    t.equal(page.url(), `${origin}/`)
    await page.goForward()
    await page.locator('h1', { hasText: 'About' }).waitFor()
    await page.goForward()
    await page.locator('h1', { hasText: 'Item list 1' }).waitFor()
    t.same(documentRequests, [`${origin}/`], 'history moves never reloaded the document')
    t.same(errors, [])
  })

  t.test('the layout stays across client navigations and follows the current section', async (t) => {
    const { page, documentRequests } = await openPage(t)
    await page.goto(`${origin}/about`)
    await waitForHydration(page)
    const currentSection = () => page.locator('nav[aria-label="Main"] a[aria-current="page"]').textContent()
    t.equal(await currentSection(), 'About')
    await page.locator('nav[aria-label="Main"]').getByRole('link', { name: 'Items' }).click()
    await page.locator('h1', { hasText: 'Item list 1' }).waitFor()
    t.equal(await currentSection(), 'Items')
    await page.locator('nav[aria-label="Main"]').getByRole('link', { name: 'Contact' }).click()
    await page.locator('h1', { hasText: 'Contact' }).waitFor()
    t.equal(await currentSection(), 'Contact')
    t.same(documentRequests, [`${origin}/about`], 'the nav navigates client-side')
  })

  t.test("a client navigation replaces the page's head entries, never adds to them", async (t) => {
    const { page, documentRequests } = await openPage(t)
    const head = () =>
      page.evaluate(() => [...document.head.querySelectorAll('[data-head]')].map((tag) => tag.outerHTML.replace(/ data-head=""/, '')))
    // Counts head tags taken out of the document, from before the first byte.
    await page.addInitScript(() => {
      const removed = { count: 0 }
      ;(window as unknown as { headTagsRemoved: typeof removed }).headTagsRemoved = removed
      new MutationObserver((records) => {
        for (const record of records) for (const node of record.removedNodes) if ((node as Element).hasAttribute?.('data-head')) removed.count++
      }).observe(document, { childList: true, subtree: true })
    })
    await page.goto(`${origin}/about`)
    await waitForHydration(page)
    const removed = () => page.evaluate(() => (window as unknown as { headTagsRemoved: { count: number } }).headTagsRemoved.count)
    t.equal(await removed(), 0, "hydration keeps the server's head tags as they are")
    t.same(await head(), ['<meta name="description" content="How this application renders, hydrates and routes its pages.">'])
    await page.getByRole('link', { name: 'See item list 1' }).click()
    await page.locator('h1', { hasText: 'Item list 1' }).waitFor()
    t.ok((await removed()) > 0, 'a navigation replaces them')
    t.same(await head(), [
      '<meta name="description" content="Item list 1: 200 rows of names, prices and tags.">',
      '<link rel="canonical" href="/items/1">',
      '<meta property="og:title" content="Item list 1">',
      '<meta property="og:type" content="website">',
    ])
    t.equal(await page.title(), 'Item list 1')
    await page.locator('#route-announcer', { hasText: 'Item list 1' }).waitFor()
    await page.goBack()
    await page.locator('h1', { hasText: 'About' }).waitFor()
    t.same(
      await head(),
      ['<meta name="description" content="How this application renders, hydrates and routes its pages.">'],
      'back: the canonical is gone',
    )
    t.equal(await page.evaluate(() => document.querySelectorAll('meta[name="description"]').length), 1)
    t.same(documentRequests, [`${origin}/about`])
  })

  t.test('an unknown path shows the not-found page, hydrated, with a link home that works', async (t) => {
    const { page, errors, failedResources, documentRequests } = await openPage(t)
    const response = await page.goto(`${origin}/nope`)
    t.equal(response?.status(), 404)
    await waitForHydration(page)
    t.equal(await page.locator('h1').textContent(), '404: This page could not be found.')
    t.equal(await page.title(), 'Page not found')
    await page.getByRole('link', { name: 'Go to the home page' }).click()
    await page.locator('h1', { hasText: 'Server-rendered React on Fastify' }).waitFor()
    t.same(documentRequests, [`${origin}/nope`])
    t.same(errors, [])
    t.same(failedResources, [`${origin}/nope`], "Chromium reports only the document's own 404")
  })

  t.test('a modified click (new tab) is left to the browser', async (t) => {
    const { page } = await openPage(t)
    await page.goto(`${origin}/items/7`)
    await waitForHydration(page)
    const [popup] = await Promise.all([
      page.context().waitForEvent('page'),
      page
        .locator('main')
        .getByRole('link', { name: 'About' })
        .click({ modifiers: ['Shift'] }),
    ])
    t.ok(popup, 'a new window opened')
    t.equal(page.url(), `${origin}/items/7`, 'the current page stayed')
  })
})
