// test-needs: chromium
/**
 * The navigation engine in Chromium (docs/architecture.md, "Navigation"): the prefetch queue, the page-data
 * cache's lifetimes, the fallbacks to a document load, supersession, scroll, focus,
 * title and announcement. Request interception holds or alters answers; Playwright's
 * clock moves time where the rule is about time.
 */
import type { Page, Route } from 'playwright-core'
import t from 'tap'
import { browserTestApp } from '../helpers/app.js'
import { openPage, settle, settleAfter, waitForHydration, type TrackedPage } from '../helpers/browser.js'
import { waitUntil } from '../helpers/wait.js'
import { LINK_COUNT } from '../fixtures/app/routes.js'

type Test = Parameters<typeof openPage>[0]

/**
 * The page's scroll position once it is `y`, or wherever it is after 10 s: an
 * assertion on it then names the position found, not just a timeout.
 */
async function scrollOnceAt(page: Page, y: number): Promise<number> {
  await page.waitForFunction((y) => Math.round(window.scrollY) === y, y, { timeout: 10_000 }).catch(() => {})
  return page.evaluate(() => Math.round(window.scrollY))
}

t.test('navigation engine', async (t) => {
  const { origin, build } = await browserTestApp(t, 'fixture')
  const chunkOf = (routeId: string) => `${origin}${build.manifest.routes[routeId]!.file}`
  const countOf = (tracked: TrackedPage, path: string) => tracked.dataRequests.filter((url) => url === `${origin}/_data${path}`).length

  async function open(t: Test, path: string, setup?: (tracked: TrackedPage) => Promise<void>, expectedErrors: readonly RegExp[] = []) {
    const tracked = await openPage(t, {}, expectedErrors)
    await setup?.(tracked)
    await tracked.page.goto(origin + path)
    await waitForHydration(tracked.page)
    return tracked
  }

  t.test('20 links in view: never more than 5 page-data requests in flight, and all 20 arrive', async (t) => {
    const held: Route[] = []
    let inFlight = 0
    let maxInFlight = 0
    const tracked = await open(t, '/links', async ({ page }) => {
      await page.route(/\/_data\/target\?i=\d+$/, (route) => {
        maxInFlight = Math.max(maxInFlight, ++inFlight)
        held.push(route)
      })
    })
    await waitUntil(() => held.length === 5, 'the first 5 prefetches are held')
    let released = 0
    while (released < LINK_COUNT) {
      const route = held[released++]!
      inFlight--
      await route.continue()
      if (released <= LINK_COUNT - 5) await waitUntil(() => held.length === released + 5, `prefetch ${released + 5} starts`)
    }
    t.equal(maxInFlight, 5, 'the queue filled up to 5, never beyond')
    t.equal(held.length, LINK_COUNT, 'every link was prefetched')
    const urls = held.map((route) => new URL(route.request().url()).search)
    t.same(
      urls,
      Array.from({ length: LINK_COUNT }, (_, i) => `?i=${i}`),
      'first in, first out',
    )
    t.same(tracked.errors, [])
  })

  t.test('hover prefetches; the click then sends no request and shows the page', async (t) => {
    const tracked = await open(t, '/long')
    const link = tracked.page.getByRole('link', { name: 'Target from the bottom' })
    const prefetched = tracked.page.waitForResponse(`${origin}/_data/target?from=long`)
    await link.hover()
    await prefetched
    await link.click()
    await tracked.page.locator('h1', { hasText: 'Target' }).waitFor()
    t.equal(countOf(tracked, '/target?from=long'), 1, 'one request, the prefetch')
    t.same(tracked.documentRequests, [`${origin}/long`])
  })

  t.test('a link with target="_blank" opens a new tab, a link with download saves a file: the page stays, nothing is prefetched', async (t) => {
    const tracked = await open(t, '/links')
    const newTab = tracked.page.getByRole('link', { name: 'In a new tab' })
    await newTab.hover()
    const [popup] = await Promise.all([tracked.page.context().waitForEvent('page'), newTab.click()])
    await popup.waitForURL(`${origin}/target?tab=1`)
    t.equal(await popup.locator('h1').textContent(), 'Target', 'the new tab loaded the page as a document')

    const [download] = await Promise.all([tracked.page.waitForEvent('download'), tracked.page.getByRole('link', { name: 'Saved as a file' }).click()])
    t.equal(download.url(), `${origin}/target?saved=1`)
    t.equal(download.suggestedFilename(), 'target.html')

    t.equal(tracked.page.url(), `${origin}/links`, 'this tab stayed on its page')
    t.same(tracked.documentRequests, [`${origin}/links`])
    t.same(
      tracked.dataRequests.filter((url) => /[?&](tab|saved)=1$/.test(url)),
      [],
      'neither page was prefetched or loaded as data in this tab',
    )
  })

  t.test('prefetched data of a dynamic page is used for 30 s, then fetched again', async (t) => {
    const tracked = await open(t, '/links', async ({ page }) => page.clock.install())
    await settleAfter(tracked, `${origin}/_data/target?i=3`, chunkOf('target')) // the viewport prefetch arrived and went into the cache
    await tracked.page.clock.fastForward(31_000)
    await tracked.page.getByRole('link', { name: 'Target 3', exact: true }).click()
    await tracked.page.locator('h1', { hasText: 'Target' }).waitFor()
    await waitUntil(() => countOf(tracked, '/target?i=3') === 2, 'a second request for the page')
    t.equal(countOf(tracked, '/target?i=3'), 2, 'fetched again on click after 31 s')
  })

  t.test('a static page prefetched 299 s ago is not fetched again; 301 s ago it is', async (t) => {
    const tracked = await open(t, '/long', async ({ page }) => page.clock.install())
    const link = tracked.page.getByRole('link', { name: 'Static from the bottom' })
    await link.hover()
    await settleAfter(tracked, `${origin}/_data/static-page`, chunkOf('static-page')) // the prefetch arrived and went into the cache: its lifetime counts from before now
    // A paused clock: test steps taking real time (a loaded machine) must not age the entry.
    const fetched = await tracked.page.evaluate(() => Date.now())
    await tracked.page.clock.pauseAt(fetched + 299_000)
    await link.click()
    await tracked.page.locator('h1', { hasText: 'Static' }).waitFor()
    t.equal(countOf(tracked, '/static-page'), 1, 'no request at 299 s')

    await tracked.page.goBack()
    await tracked.page.locator('h1', { hasText: 'Long' }).waitFor()
    t.equal(countOf(tracked, '/static-page'), 1, 'back at the links, still fresh at 299 s')
    await tracked.page.clock.pauseAt(fetched + 301_000)
    await link.click()
    await tracked.page.locator('h1', { hasText: 'Static' }).waitFor()
    await waitUntil(() => countOf(tracked, '/static-page') === 2, 'a second request for the static page')
    t.equal(countOf(tracked, '/static-page'), 2, 'fetched again at 301 s')
  })

  t.test('an answer held past 3800 ms becomes a document load of the target; slow shows progress', async (t) => {
    const tracked = await open(t, '/links', async ({ page }) => {
      await page.clock.install()
      await page.route(`${origin}/_data/target?slow=1`, () => {}) // never answered
    })
    await tracked.page.getByRole('link', { name: 'Slow' }).click()
    await waitUntil(() => countOf(tracked, '/target?slow=1') === 1, 'the data request')
    await tracked.page.clock.fastForward(200)
    await tracked.page.getByRole('progressbar', { name: 'Loading page' }).waitFor()
    t.equal(tracked.page.url(), `${origin}/links`, 'the URL has not changed while loading')
    const documentLoad = tracked.page.waitForRequest(
      (request) => request.resourceType() === 'document' && request.url() === `${origin}/target?slow=1`,
    )
    await tracked.page.clock.fastForward(3_700)
    await documentLoad
    await tracked.page.locator('h1', { hasText: 'Target' }).waitFor()
    t.equal(tracked.page.url(), `${origin}/target?slow=1`)
  })

  t.test('a request that fails at the network level becomes a document load of the target', async (t) => {
    const tracked = await open(t, '/links', async ({ page }) => {
      await page.route(`${origin}/_data/target?i=5`, (route) => route.abort('connectionreset'))
    })
    await tracked.page.getByRole('link', { name: 'Target 5', exact: true }).click()
    await tracked.page.waitForURL(`${origin}/target?i=5`)
    await tracked.page.locator('h1', { hasText: 'Target' }).waitFor()
    t.same(tracked.documentRequests, [`${origin}/links`, `${origin}/target?i=5`])
  })

  t.test('an answer from another build becomes a document load of the target', async (t) => {
    const tracked = await open(t, '/links', async ({ page }) => {
      await page.route(`${origin}/_data/target?skew=1`, async (route) => {
        const response = await route.fetch()
        const body = { ...(await response.json()), buildId: 'another-build' }
        await route.fulfill({ response, json: body })
      })
    })
    await tracked.page.getByRole('link', { name: 'Skewed', exact: true }).click()
    await tracked.page.waitForURL(`${origin}/target?skew=1`)
    await tracked.page.locator('h1', { hasText: 'Target' }).waitFor()
    t.same(tracked.documentRequests, [`${origin}/links`, `${origin}/target?skew=1`])
  })

  t.test(
    "a data request names the browser's build; a server of another build refuses it before its loaders, and the target loads as a document",
    async (t) => {
      const sent: Array<string | undefined> = []
      const answers: number[] = []
      const tracked = await open(t, '/links', async ({ page }) => {
        // This document as the build before a deploy served it: the server now runs another.
        await page.route(`${origin}/links`, async (route) => {
          const response = await route.fetch()
          const html = (await response.text()).replace(/"buildId":"[^"]+"/, '"buildId":"the-build-before"')
          await route.fulfill({ response, body: html })
        })
        page.on('request', (request) => request.url().includes('/_data/target?skew=2') && sent.push(request.headers()['x-build-id']))
        page.on('response', (response) => response.url().includes('/_data/target?skew=2') && answers.push(response.status()))
      })
      await tracked.page.getByRole('link', { name: 'Skewed again' }).click()
      await tracked.page.waitForURL(`${origin}/target?skew=2`)
      await tracked.page.locator('h1', { hasText: 'Target' }).waitFor()
      t.same(sent, ['the-build-before'], 'the data request named the build the page runs')
      t.same(answers, [409], 'refused before its loaders')
      t.same(tracked.documentRequests, [`${origin}/links`, `${origin}/target?skew=2`])
    },
  )

  t.test('a route chunk that fails to load (removed by a deploy) becomes a document load', async (t) => {
    const tracked = await open(
      t,
      '/links',
      async ({ page }) => {
        await page.route(/\/assets\/chunky-[^/]+\.js$/, (route) => route.fulfill({ status: 404, body: 'gone' }))
      },
      [/Failed to fetch dynamically imported module/],
    )
    await tracked.page.getByRole('link', { name: 'Chunky' }).click()
    await tracked.page.waitForURL(`${origin}/chunky`)
    await tracked.page.locator('h1', { hasText: 'Chunky' }).waitFor()
    t.same(tracked.documentRequests, [`${origin}/links`, `${origin}/chunky`])
  })

  t.test('a newer navigation supersedes an older one, which never renders', async (t) => {
    let release: (() => Promise<void>) | undefined
    const tracked = await open(t, '/links', async ({ page }) => {
      await page.route(`${origin}/_data/target?first=1`, (route) => {
        release = () => route.continue()
      })
    })
    await tracked.page.getByRole('link', { name: 'First' }).click()
    await waitUntil(() => release !== undefined, 'the first navigation is loading')
    await tracked.page.getByRole('link', { name: 'Static' }).click()
    await tracked.page.locator('h1', { hasText: 'Static' }).waitFor()
    await release!()
    await settleAfter(tracked, `${origin}/_data/target?first=1`) // the superseded answer is in, and was ignored
    t.equal(tracked.page.url(), `${origin}/static-page`)
    t.equal(await tracked.page.locator('h1').textContent(), 'Static')
    await tracked.page.goBack()
    await tracked.page.locator('h1', { hasText: 'Links' }).waitFor()
    t.equal(tracked.page.url(), `${origin}/links`, 'the superseded URL never entered history')
  })

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

    await page.goBack()
    await page.locator('h1', { hasText: 'Long' }).waitFor()
    await page.waitForFunction((y) => window.scrollY === y, scrolled)
    t.equal(await page.title(), 'Long')
    await page.goForward()
    await page.locator('h1', { hasText: 'Target' }).waitFor()
    await page.waitForFunction(() => window.scrollY === 0)
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

  t.test('with Data Saver on, nothing is prefetched; navigation still works', async (t) => {
    const tracked = await open(t, '/links', async ({ page }) => {
      await page.addInitScript(() => Object.defineProperty(navigator, 'connection', { value: { saveData: true } }))
    })
    const link = tracked.page.getByRole('link', { name: 'Target 4', exact: true })
    await link.hover()
    await settle(tracked)
    t.same(tracked.dataRequests, [], 'no prefetch from the viewport or hover')
    await link.click()
    await tracked.page.locator('h1', { hasText: 'Target' }).waitFor()
    t.same(tracked.dataRequests, [`${origin}/_data/target?i=4`])
  })

  t.test('Forward to a page the cache no longer holds: progress while it loads, a document load past 3800 ms', async (t) => {
    const tracked = await open(t, '/counter', ({ page }) => page.clock.install())
    const { page } = tracked
    await page.getByRole('link', { name: 'Static' }).click()
    await page.locator('h1', { hasText: 'Static' }).waitFor()
    await page.goBack()
    await page.locator('h1', { hasText: 'Counter' }).waitFor()
    const loads = Number(/\d+/.exec((await page.locator('.count').textContent()) ?? '')?.[0])
    await page.getByRole('button', { name: 'Refresh' }).click() // empties the cache
    await page.waitForFunction((n) => document.querySelector('.count')?.textContent === `Loaded ${n} times`, loads + 1)
    await page.route(`${origin}/_data/static-page`, () => {}) // never answered
    const asked = countOf(tracked, '/static-page')
    await page.goForward()
    await waitUntil(() => countOf(tracked, '/static-page') === asked + 1, 'the data request')
    t.equal(page.url(), `${origin}/static-page`)
    await page.clock.fastForward(200)
    await page.getByRole('progressbar', { name: 'Loading page' }).waitFor()
    t.equal(await page.locator('h1').textContent(), 'Counter', 'the page before stays while it loads')
    const documentLoad = page.waitForRequest((request) => request.resourceType() === 'document' && request.url() === `${origin}/static-page`)
    await page.clock.fastForward(3_700)
    await documentLoad
    await page.locator('h1', { hasText: 'Static' }).waitFor()
  })

  t.test('a link clicked after hydration but before the engine has loaded is a document load', async (t) => {
    const tracked = await openPage(t)
    const { page } = tracked
    await page.route(/\/assets\/navigation-engine-[^/]+\.js$/, () => {}) // held: the engine never arrives
    await page.goto(`${origin}/links`)
    await page.waitForFunction(() => performance.getEntriesByName('app:hydrated').length > 0)
    await page.getByRole('link', { name: 'Static' }).click()
    await page.locator('h1', { hasText: 'Static' }).waitFor()
    t.same(tracked.documentRequests, [`${origin}/links`, `${origin}/static-page`], 'the browser loaded the page')
  })

  t.test('refresh() loads the current page again and empties the cache', async (t) => {
    const tracked = await open(t, '/counter')
    const count = async () => Number(/\d+/.exec((await tracked.page.locator('.count').textContent()) ?? '')?.[0])
    const before = await count()
    await tracked.page.getByRole('button', { name: 'Refresh' }).click()
    await tracked.page.waitForFunction((n) => document.querySelector('.count')?.textContent === `Loaded ${n} times`, before + 1)
    t.same(tracked.documentRequests, [`${origin}/counter`], 'without a document load')
    t.equal(await tracked.page.evaluate(() => document.activeElement?.tagName), 'BUTTON', 'focus stays where it was')
  })
})
