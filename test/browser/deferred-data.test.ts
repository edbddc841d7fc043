// test-needs: chromium
/**
 * Deferred data in Chromium, the fixture's part held by `partGate` until the test opens
 * it: the document hydrates with the part still on its way and fills it in; a client
 * navigation shows the fallback, then the part, without a document load; a failing part
 * shows its own boundary with the digest, logged once on the server and never sent to
 * the browser's console as an error, and a crawler's page has it in place already; the
 * demo's statistics arrive after a navigation.
 */
import t from 'tap'
import { browserTestApp } from '../helpers/app.js'
import { openPage, waitForHydration } from '../helpers/browser.js'
import { partGate } from '../fixtures/app/stream-gate.js'

t.test('deferred parts in the fixture', async (t) => {
  const { origin, logs } = await browserTestApp(t, 'fixture')

  t.test('a document: hydrated while the part is on its way, then filled in', async (t) => {
    partGate.reset()
    const { page, documentRequests } = await openPage(t)
    await page.goto(`${origin}/deferred`, { waitUntil: 'commit' })
    await page.locator('#part-waiting').waitFor()
    await waitForHydration(page)
    t.equal(await page.locator('#part').count(), 0, 'interactive before the part came')
    partGate.open()
    await page.locator('#part', { hasText: 'Arrived later' }).waitFor()
    t.equal(await page.locator('#part-waiting').count(), 0, 'the fallback is gone')
    await page.getByRole('link', { name: 'Target', exact: true }).click()
    await page.locator('h1', { hasText: 'Target' }).waitFor()
    t.same(documentRequests, [`${origin}/deferred`], 'and the page works: a link is a client navigation')
  })

  /** A hydrated /links page, the gate closed, then a click on `link`. */
  async function navigateFrom(t: Parameters<typeof openPage>[0], link: string) {
    partGate.reset()
    const tracked = await openPage(t)
    await tracked.page.goto(`${origin}/links`)
    await waitForHydration(tracked.page)
    await tracked.page.getByRole('link', { name: link, exact: true }).click()
    return tracked
  }

  t.test('a client navigation shows the fallback, then the part', async (t) => {
    const { page, documentRequests } = await navigateFrom(t, 'A deferred part')
    await page.locator('h1', { hasText: 'Deferred' }).waitFor()
    t.ok(await page.locator('#part-waiting').isVisible(), 'the page shows at once, with the fallback')
    partGate.open()
    await page.locator('#part', { hasText: 'Arrived later' }).waitFor()
    t.same(documentRequests, [`${origin}/links`], 'no document load')
  })

  t.test("a layout's part, after a client navigation", async (t) => {
    const { page, documentRequests } = await navigateFrom(t, 'A layout with a deferred part')
    await page.locator('h1', { hasText: 'Late note' }).waitFor()
    t.ok(await page.locator('#note-waiting').isVisible(), 'the layout shows its fallback')
    partGate.open()
    await page.locator('#note', { hasText: 'A late note' }).waitFor()
    t.same(documentRequests, [`${origin}/links`])
  })

  t.test('a failing part shows its boundary with the digest; the rest of the page stays', async (t) => {
    for (const way of ['document', 'navigation'] as const) {
      partGate.reset()
      const { page, errors } = await openPage(t)
      if (way === 'document') {
        await page.goto(`${origin}/deferred?fail=1`, { waitUntil: 'commit' })
        await page.locator('#part-waiting').waitFor()
      } else {
        await page.goto(`${origin}/links`)
        await waitForHydration(page)
        await page.getByRole('link', { name: 'A failing deferred part' }).click()
        await page.locator('#part-waiting').waitFor()
      }
      const logged = logs.length
      partGate.open()
      const notice = page.getByRole('alert').filter({ hasText: 'This part of the page could not be loaded.' })
      await notice.waitFor()
      await waitForHydration(page)
      const failures = logs.slice(logged).filter((line) => line.msg === 'deferred data failed')
      t.equal(failures.length, 1, `${way}: logged once on the server`)
      t.match(await notice.textContent(), `Digest: ${String(failures[0]?.digest)}`, `${way}: the digest finds the log line`)
      t.ok(await page.locator('h1', { hasText: 'Deferred' }).isVisible(), `${way}: the rest of the page stays`)
      t.notMatch(await page.content(), 'The late part failed', `${way}: its message never reaches the browser`)
      t.same(errors, [], `${way}: no error in the console (the server reported it)`)
    }
  })

  t.test("a crawler that runs scripts: a page sent with a failed part's error in place hydrates as it is", async (t) => {
    partGate.reset()
    partGate.open()
    const { page, errors } = await openPage(t, { userAgent: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' })
    await page.goto(`${origin}/deferred?fail=1`)
    await waitForHydration(page)
    t.ok(await page.getByRole('alert').filter({ hasText: 'This part of the page could not be loaded.' }).isVisible(), 'the error stays')
    t.equal(await page.locator('#part-waiting').count(), 0, 'no fallback')
    t.same(errors, [], 'no hydration mismatch: the browser renders the same, and reports nothing')
  })
})

t.test("the demo's price statistics after a client navigation", async (t) => {
  const { origin } = await browserTestApp(t)
  const { page, documentRequests } = await openPage(t)
  await page.goto(`${origin}/items/7`)
  await waitForHydration(page)
  await page.getByRole('link', { name: 'price statistics' }).click()
  await page.getByRole('heading', { name: 'Item list 7: price statistics' }).waitFor()
  t.ok(await page.getByText('Mean price').isVisible(), 'the summary with the page')
  await page.getByText('Median price').waitFor()
  t.ok(await page.getByRole('button', { name: 'Star this list' }).isVisible(), 'inside the items layout, its toggle too')
  t.same(documentRequests, [`${origin}/items/7`])
})
