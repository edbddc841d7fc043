// test-needs: chromium
/**
 * The navigation engine in Chromium (docs/architecture.md, "Navigation"): the prefetch queue, the page-data
 * cache's lifetimes, the fallbacks to a document load, supersession, refresh(). Scroll,
 * focus, title, announcement and history: navigation-history.test.ts. Request interception holds or alters answers; Playwright's
 * clock moves time where the rule is about time.
 */
import type { Route } from 'playwright-core'
import t from 'tap'
import { browserTestApp } from '../helpers/app.js'
import { navigationPages } from '../helpers/navigation.js'
import { openPage, settle, settleAfter } from '../helpers/browser.js'
import { waitUntil } from '../helpers/wait.js'
import { LINK_COUNT } from '../fixtures/app/routes.js'

t.test('navigation engine', async (t) => {
  const { origin, build } = await browserTestApp(t, 'fixture')
  const { chunkOf, countOf, open } = navigationPages(origin, build.manifest)

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

  t.test('by default a dynamic page is prefetched on intent, a static one in view; a route may say never', async (t) => {
    const tracked = await open(t, '/links')
    const { page } = tracked
    // In view together, in this order: were the dynamic links prefetched in view, the
    // queue (first in, first out) would have started them before the static one.
    await waitUntil(() => tracked.dataFinished.includes(`${origin}/_data/static-page?in-view=1`), 'the static page in view is prefetched')
    t.equal(countOf(tracked, '/target?intent=1'), 0, 'a dynamic page in view is not')
    t.equal(countOf(tracked, '/chunky'), 0)

    await page.getByRole('link', { name: 'On intent', exact: true }).hover()
    await waitUntil(() => countOf(tracked, '/target?intent=1') === 1, 'hovering it prefetches it')
    // Intent puts a link first in the queue: had Chunky been asked for, it would have gone before.
    await page.getByRole('link', { name: 'Chunky' }).hover()
    await page.getByRole('link', { name: 'On intent too' }).focus()
    await waitUntil(() => countOf(tracked, '/target?intent=2') === 1, 'focusing a link prefetches it')
    t.equal(countOf(tracked, '/chunky'), 0, "a route that says 'none' is never prefetched")
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
    // Fetched again, as page data or (a loaded machine past the navigation's deadline) as a
    // document: either way the data 31 s old was not used.
    const fetchedAgain = () => countOf(tracked, '/target?i=3') >= 2 || tracked.documentRequests.some((url) => url === `${origin}/target?i=3`)
    await waitUntil(fetchedAgain, 'a second request for the page')
    t.ok(fetchedAgain(), 'fetched again on click after 31 s')
  })

  t.test('a static page prefetched 290 s ago is not fetched again; 301 s ago it is', async (t) => {
    const tracked = await open(t, '/long', async ({ page }) => page.clock.install())
    const link = tracked.page.getByRole('link', { name: 'Static from the bottom' })
    await link.hover()
    await settleAfter(tracked, `${origin}/_data/static-page`, chunkOf('static-page')) // the prefetch arrived and went into the cache: its lifetime counts from before now
    // A paused clock: test steps taking real time (a loaded machine) must not age the entry.
    // The entry's time was taken when the prefetch answered, before `fetched`: on a machine
    // loaded enough, seconds before. So fresh is tried at 290 s, stale at 301 s.
    const fetched = await tracked.page.evaluate(() => Date.now())
    await tracked.page.clock.pauseAt(fetched + 290_000)
    await link.click()
    await tracked.page.locator('h1', { hasText: 'Static' }).waitFor()
    t.equal(countOf(tracked, '/static-page'), 1, 'no request at 290 s')

    await tracked.page.goBack()
    await tracked.page.locator('h1', { hasText: 'Long' }).waitFor()
    t.equal(countOf(tracked, '/static-page'), 1, 'back at the links, still fresh at 290 s')
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
    await page.getByRole('link', { name: 'Target' }).click()
    await page.locator('h1', { hasText: 'Target' }).waitFor()
    await page.goBack()
    await page.locator('h1', { hasText: 'Counter' }).waitFor()
    const loads = Number(/\d+/.exec((await page.locator('.count').textContent()) ?? '')?.[0])
    await page.getByRole('button', { name: 'Refresh' }).click() // marks the other cached pages stale
    await page.waitForFunction((n) => document.querySelector('.count')?.textContent === `Loaded ${n} times`, loads + 1)
    await page.route(`${origin}/_data/target?from=counter`, () => {}) // never answered
    const asked = countOf(tracked, '/target?from=counter')
    await page.goForward()
    await waitUntil(() => countOf(tracked, '/target?from=counter') === asked + 1, 'the data request')
    t.equal(page.url(), `${origin}/target?from=counter`)
    await page.clock.fastForward(200)
    await page.getByRole('progressbar', { name: 'Loading page' }).waitFor()
    t.equal(await page.locator('h1').textContent(), 'Counter', 'the page before stays while it loads')
    const documentLoad = page.waitForRequest((request) => request.resourceType() === 'document' && request.url() === `${origin}/target?from=counter`)
    await page.clock.fastForward(3_700)
    await documentLoad
    await page.locator('h1', { hasText: 'Target' }).waitFor()
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

  t.test('refresh() loads the current page again', async (t) => {
    const tracked = await open(t, '/counter')
    const count = async () => Number(/\d+/.exec((await tracked.page.locator('.count').textContent()) ?? '')?.[0])
    const before = await count()
    await tracked.page.getByRole('button', { name: 'Refresh' }).click()
    await tracked.page.waitForFunction((n) => document.querySelector('.count')?.textContent === `Loaded ${n} times`, before + 1)
    t.same(tracked.documentRequests, [`${origin}/counter`], 'without a document load')
    t.equal(await tracked.page.evaluate(() => document.activeElement?.tagName), 'BUTTON', 'focus stays where it was')
  })
})
