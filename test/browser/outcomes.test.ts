// test-needs: chromium
/**
 * What the browser shows for each loader outcome and for a render error, using the
 * fixture application's test-only routes.
 */
import t from 'tap'
import { browserTestApp } from '../helpers/app.js'
import { openPage, waitForHydration } from '../helpers/browser.js'

const SERVER_ERROR_TEXT = 'Application error: a server-side exception has occurred (see the server logs for more information).'
const CLIENT_ERROR_TEXT = 'Application error: a client-side exception has occurred (see the browser console for more information)'

t.test('loader outcomes and render errors in Chromium', async (t) => {
  const { origin } = await browserTestApp(t, 'fixture')

  async function startAt(t: Parameters<typeof openPage>[0], path = '/', expectedErrors: readonly RegExp[] = []) {
    const tracked = await openPage(t, {}, expectedErrors)
    await tracked.page.goto(origin + path)
    await waitForHydration(tracked.page)
    return tracked
  }

  t.test('a page that throws while rendering in the browser shows the client-side error text', async (t) => {
    const { page, errors } = await startAt(t, '/client-crash', [/Rendering failed in the browser/])
    t.same(errors, [], 'it rendered fine at first')
    await page.getByRole('button', { name: 'Break me' }).click()
    await page.getByText(CLIENT_ERROR_TEXT).waitFor()
    t.equal(await page.locator('h1').textContent(), CLIENT_ERROR_TEXT)
    t.ok(
      errors.some((e) => e.includes('Rendering failed in the browser')),
      'the error is in the console',
    )
    // The layout around the page was never touched: its link works, and the next page renders.
    await page.getByRole('link', { name: 'Fixture header link' }).click()
    await page.locator('h1', { hasText: 'Target' }).waitFor()
    t.equal(await page.getByText(CLIENT_ERROR_TEXT).count(), 0, 'the error page is gone after moving on')
  })

  t.test('prefetching links to failing pages costs nothing but their HTTP status in the console', async (t) => {
    const { page, errors, failedResources } = await startAt(t)
    await page.waitForFunction(() => performance.getEntriesByType('resource').filter((e) => e.name.includes('/_data/')).length >= 5)
    t.same(errors, [])
    t.same(
      [...new Set(failedResources)].sort(),
      [`${origin}/_data/failing`, `${origin}/_data/missing/absent`],
      'only the 404 and 500 page data show up',
    )
  })

  t.test('a link to a redirecting page lands on the target, client-side', async (t) => {
    const { page, errors, documentRequests } = await startAt(t)
    await page.getByRole('link', { name: 'Moved' }).click()
    await page.locator('h1', { hasText: 'Target' }).waitFor()
    t.equal(page.url(), `${origin}/target`)
    t.same(documentRequests, [`${origin}/`])
    await page.goBack()
    await page.locator('h1', { hasText: 'Start' }).waitFor()
    t.equal(page.url(), `${origin}/`, 'the redirecting URL never entered history')
    t.same(errors, [])
  })

  t.test('a link to a missing page shows the not-found page client-side', async (t) => {
    const { page, documentRequests } = await startAt(t)
    await page.getByRole('link', { name: 'Missing' }).click()
    await page.locator('h1', { hasText: '404: This page could not be found.' }).waitFor()
    t.equal(page.url(), `${origin}/missing/absent`)
    t.equal(await page.title(), 'Page not found')
    t.same(documentRequests, [`${origin}/`])
  })

  t.test('a link to a page whose loader fails shows the server-side error page with its digest', async (t) => {
    const { page, documentRequests } = await startAt(t)
    await page.getByRole('link', { name: 'Failing' }).click()
    await page.locator('h1', { hasText: SERVER_ERROR_TEXT }).waitFor()
    t.match(await page.locator('.digest').textContent(), /^Digest: [0-9a-z]+$/)
    t.equal(page.url(), `${origin}/failing`)
    t.same(documentRequests, [`${origin}/`])
  })

  t.test('hostile data renders as text, and no injected script runs', async (t) => {
    const { page, errors } = await openPage(t)
    await page.addInitScript(() => {
      window.alert = () => {
        ;(window as any).__alerted = true
      }
    })
    await page.goto(`${origin}/hostile`)
    await waitForHydration(page)
    t.equal(await page.locator('p.text').textContent(), '</script><script>alert(1)</script> \u2028 \u2029 <!-- & "quoted"')
    t.notOk(await page.evaluate(() => (window as any).__alerted), 'no alert ran')
    t.same(errors, [], 'no hydration mismatch either')
  })
})
