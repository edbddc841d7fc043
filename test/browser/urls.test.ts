// test-needs: chromium
/**
 * Encoded and odd URLs in Chromium: the page the server rendered is the page that
 * hydrates, with no console warning and no request for its own data (the server's key
 * and the browser's key for it are the same), for named cases and for a sample of
 * generated URLs.
 */
import fc from 'fast-check'
import t from 'tap'
import { pageKeyOf } from '../../shared/framework/location.js'
import { browserTestApp } from '../helpers/app.js'
import { openPage, waitForHydration, type TrackedPage } from '../helpers/browser.js'
import { productionUrl } from '../helpers/generated-urls.js'

/**
 * Records the page-data requests each document makes, by the document's URL (their
 * Referer), so a straggling prefetch of the page before is never counted.
 */
function dataRequestsByDocument(tracked: TrackedPage) {
  const byDocument = new Map<string, string[]>()
  tracked.page.on('request', (request) => {
    const url = new URL(request.url())
    if (!url.pathname.startsWith('/_data/')) return
    const from = request.headers().referer ?? ''
    byDocument.set(from, [...(byDocument.get(from) ?? []), pageKeyOf(url.pathname.slice('/_data'.length), url.search)])
  })
  /** The keys of the page-data requests the document at `documentUrl` made. */
  return (documentUrl: string) => byDocument.get(documentUrl) ?? []
}

/** True when the document on screen asked for its own page data. */
function askedForItself(requestsOf: (documentUrl: string) => string[], documentUrl: string): boolean {
  const here = new URL(documentUrl)
  return requestsOf(documentUrl).includes(pageKeyOf(here.pathname, here.search))
}

t.test('encoded URLs hydrate the page the server rendered', async (t) => {
  const { origin } = await browserTestApp(t)
  const tracked = await openPage(t)
  const requestsOf = dataRequestsByDocument(tracked)
  const cases: Array<[url: string, heading: string]> = [
    ['/contact?name=%E5%90%8D', 'Contact'],
    ['/items/1?q=a%20b', 'Item list 1'],
    ['/items/1?q=a+b', 'Item list 1'],
    ['/items/%31', 'Item list 1'],
    ['/%D1%88%D0%B5%D0%BB%D0%BB%D1%8B', '404: This page could not be found.'],
    ['/this-is/100%25%20true', '404: This page could not be found.'],
  ]
  for (const [url, heading] of cases) {
    await tracked.page.goto(origin + url)
    await waitForHydration(tracked.page)
    t.equal(await tracked.page.locator('main h1').first().textContent(), heading, url)
    t.notOk(askedForItself(requestsOf, tracked.page.url()), `${url}: no request for its own data`)
  }
  t.same(tracked.errors, [])
})

t.test('a client navigation to an encoded URL and back shows the right pages', async (t) => {
  const { origin } = await browserTestApp(t)
  const tracked = await openPage(t)
  await tracked.page.goto(`${origin}/about`)
  await waitForHydration(tracked.page)
  // A navigation the way a link would do it, through the app's router.
  await tracked.page.evaluate(() => {
    history.pushState(null, '', '/this-is/100%25%20true')
    dispatchEvent(new PopStateEvent('popstate'))
  })
  await tracked.page.locator('main h1', { hasText: '404: This page could not be found.' }).waitFor()
  await tracked.page.goBack()
  await tracked.page.locator('main h1', { hasText: 'About' }).waitFor()
  t.equal(tracked.documentRequests.length, 1, 'no document load')
})

t.test('generated URLs: a sample of 50 hydrate with no warning and no request for their own data', async (t) => {
  const { origin } = await browserTestApp(t)
  const tracked = await openPage(t)
  const requestsOf = dataRequestsByDocument(tracked)
  const urls = fc.sample(productionUrl, 50)
  for (const url of urls) {
    const response = await tracked.page.goto(origin + url)
    await waitForHydration(tracked.page)
    const text = (await tracked.page.locator('main').textContent())?.trim() ?? ''
    t.ok(text.length > 0, `${url} (${response?.status()}): the page shows something`)
    t.notOk(askedForItself(requestsOf, tracked.page.url()), `${url}: no request for its own data`)
  }
  t.same(tracked.errors, [], 'no console error or warning on any of them')
})
