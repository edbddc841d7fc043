// test-needs: chromium
/**
 * Browser error reporting end to end: the real @sentry/browser in Chromium, sending
 * through the app's /monitoring tunnel to the fake ingest.
 */
import t from 'tap'
import { parseDsn } from '../../shared/framework/monitoring.js'
import { browserTestApp } from '../helpers/app.js'
import { openPage, waitForHydration, type TrackedPage } from '../helpers/browser.js'
import { startFakeIngest, type FakeIngest } from '../helpers/fake-ingest.js'
import { partGate } from '../fixtures/app/stream-gate.js'
import { CLIENT_ERROR_TEXT } from '../../shared/framework/error-texts.js'
import { waitUntil } from '../helpers/wait.js'

type Test = Parameters<typeof openPage>[0]

/** The app's monitoring config, reporting to the fake ingest through its own tunnel. */
function monitoringTo(ingest: FakeIngest, tracesSampleRate: number) {
  const dsn = parseDsn(`http://publickey@${new URL(ingest.origin).host}/1`)!
  return { dsn, allowedDsns: [dsn], environment: 'test', release: undefined, tracesSampleRate, tunnelUpstream: undefined }
}

/** From /noisy: a link that redirects (/moved -> /target) and back, then a 404 page and back. */
async function visitRedirectThenNotFound({ page }: TrackedPage) {
  await page.getByRole('link', { name: 'Moved' }).click()
  await page.locator('h1', { hasText: 'Target' }).waitFor()
  await page.goBack()
  await page.locator('h1', { hasText: 'Noisy' }).waitFor()
  await page.getByRole('link', { name: 'Missing' }).click()
  await page.locator('h1', { hasText: '404' }).waitFor()
  await page.goBack()
  await page.locator('h1', { hasText: 'Noisy' }).waitFor()
}

/** What the fixture pages throw on purpose: the errors these tests are about. */
const DELIBERATE_ERRORS = [
  /on purpose/,
  /Early failure/,
  /After the noise/,
  /ResizeObserver loop/,
  /a plain string/,
  /Rendering failed in the browser/,
  /Marker on purpose/,
]

t.test('browser monitoring', async (t) => {
  const ingest = await startFakeIngest(t)
  const { origin, build } = await browserTestApp(t, 'fixture', { config: { monitoring: monitoringTo(ingest, 0) } })
  const errorEvents = () => ingest.items('event').map((item) => item.payload)
  const eventsWith = (message: string) => errorEvents().filter((e) => e.exception?.values?.[0]?.value === message)

  async function open(t: Test, path: string, before?: (tracked: TrackedPage) => Promise<void>) {
    const tracked = await openPage(t, {}, DELIBERATE_ERRORS)
    const tunnelled: string[] = []
    tracked.page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/monitoring') tunnelled.push(request.url())
    })
    await before?.(tracked)
    await tracked.page.goto(origin + path)
    await waitForHydration(tracked.page)
    return { ...tracked, tunnelled }
  }
  const monitoringOn = (tracked: TrackedPage) => tracked.page.locator('html[data-monitoring="on"]').waitFor({ state: 'attached' })

  t.test('a thrown error reaches ingest through /monitoring, with at most 100 breadcrumbs and the right tags', async (t) => {
    const tracked = await open(t, '/noisy')
    await monitoringOn(tracked)
    // Two buttons in turn: Sentry merges repeated clicks on one element into one breadcrumb.
    const buttons = [tracked.page.getByRole('button', { name: /^Click/ }), tracked.page.getByRole('button', { name: /^Other/ })]
    for (let i = 0; i < 150; i++) await buttons[i % 2]!.click()
    await tracked.page.getByRole('button', { name: 'Click 75' }).waitFor()
    await tracked.page.getByRole('button', { name: 'Throw', exact: true }).click()
    await ingest.waitFor(() => eventsWith('Handler failed on purpose').length === 1, 'the error event')
    const [event] = eventsWith('Handler failed on purpose')
    t.equal(event.environment, 'test')
    t.equal(event.release, build.manifest.buildId, 'the release is the build id when SENTRY_RELEASE is unset')
    t.equal(event.breadcrumbs.length, 100, 'breadcrumbs capped at 100')
    t.ok(event.breadcrumbs.filter((b: any) => b.category === 'ui.click').length >= 99, 'the clicks are there')
    t.same([...new Set(tracked.tunnelled.map((url) => new URL(url).search))], ['?o=0&p=1'], 'sent through the same-origin tunnel')
  })

  t.test('noise is dropped: ResizeObserver loops and non-Error rejections', async (t) => {
    const tracked = await open(t, '/noisy')
    await monitoringOn(tracked)
    await tracked.page.getByRole('button', { name: 'Noise' }).click()
    await waitUntil(() => tracked.errors.length >= 1, 'the noise happened in the page')
    await tracked.page.getByRole('button', { name: 'Throw again' }).click()
    await ingest.waitFor(() => eventsWith('After the noise').length === 1, 'the real error after the noise')
    const noise = errorEvents().filter((e) => /ResizeObserver|Non-Error|plain string/.test(JSON.stringify(e.exception ?? e.message)))
    t.same(noise, [])
  })

  t.test('an error before the SDK loaded arrives once', async (t) => {
    let release: (() => Promise<void>) | undefined
    const tracked = await open(t, '/noisy?early=1', async ({ page }) => {
      await page.route(/\/assets\/sentry-browser-[^/]+\.js$/, (route) => {
        release = () => route.continue()
      })
    })
    await waitUntil(() => tracked.errors.some((e) => e.includes('Early failure')), 'the early error')
    await waitUntil(() => release !== undefined, 'the SDK chunk was requested')
    t.equal(eventsWith('Early failure').length, 0, 'nothing sent before the SDK is there')
    await release!()
    await monitoringOn(tracked)
    await ingest.waitFor(() => eventsWith('Early failure').length >= 1, 'the early error, sent by the SDK')
    // Another error after it: once that has arrived, a duplicate would have too.
    await tracked.page.getByRole('button', { name: 'Throw', exact: true }).click()
    await ingest.waitFor(() => eventsWith('Handler failed on purpose').length >= 2, 'a later error')
    t.equal(eventsWith('Early failure').length, 1, 'exactly once')
  })

  t.test('the root error boundary reports what it catches', async (t) => {
    const tracked = await open(t, '/client-crash')
    await monitoringOn(tracked)
    await tracked.page.getByRole('button', { name: 'Break me' }).click()
    await ingest.waitFor(() => eventsWith('Rendering failed in the browser').length === 1, 'the boundary error')
    const [event] = eventsWith('Rendering failed in the browser')
    t.equal(event.exception.values[0].mechanism.type, 'react.error-boundary')
    t.ok(event.contexts.react.componentStack, 'with the component stack')
  })

  t.test("an error in a deferred part's view is told once, though two boundaries meet it", async (t) => {
    partGate.open()
    const tracked = await open(t, '/links')
    await monitoringOn(tracked)
    await tracked.page.getByRole('link', { name: 'A deferred part whose view fails' }).click()
    // The <Await>'s boundary passes it on: the route's error screen shows.
    await tracked.page.getByRole('heading', { name: CLIENT_ERROR_TEXT }).waitFor()
    t.equal(tracked.errors.filter((e) => e.includes('The part view failed on purpose')).length, 1, 'one console error')
    await ingest.waitFor(() => eventsWith('The part view failed on purpose').length >= 1, 'the error event')
    // Another error after it: once that has arrived, a duplicate would have too.
    await tracked.page.evaluate(() => setTimeout(() => Promise.reject(new Error('Marker on purpose'))))
    await ingest.waitFor(() => eventsWith('Marker on purpose').length >= 1, 'the marker')
    t.equal(eventsWith('The part view failed on purpose').length, 1, 'one report')
  })

  t.test('redirects, not-found pages and navigations produce no error event; navigations are breadcrumbs', async (t) => {
    const tracked = await open(t, '/noisy')
    await monitoringOn(tracked)
    const before = errorEvents().length
    await visitRedirectThenNotFound(tracked)
    await tracked.page.getByRole('button', { name: 'Throw again' }).click()
    await ingest.waitFor(() => errorEvents().length === before + 1, 'the one marker error')
    const marker = errorEvents().at(-1)
    t.equal(marker.exception.values[0].value, 'After the noise', 'the only event is the marker')
    const navigations = marker.breadcrumbs.filter((b: any) => b.category === 'navigation').map((b: any) => b.data)
    t.same(navigations, [
      { from: '/noisy', to: '/target' },
      { from: '/target', to: '/noisy' },
      { from: '/noisy', to: '/missing/absent' },
      { from: '/missing/absent', to: '/noisy' },
    ])
  })
})

t.test('transactions from the router', async (t) => {
  const ingest = await startFakeIngest(t)
  const { origin } = await browserTestApp(t, 'fixture', { config: { monitoring: monitoringTo(ingest, 1) } })
  const transactions = () => ingest.items('transaction').map(({ payload }) => ({ name: payload.transaction, op: payload.contexts.trace.op }))

  t.test('page loads and navigations are named by route pattern; redirects, 404s and superseded ones are dropped', async (t) => {
    const tracked = await openPage(t)
    let releaseStatic: (() => Promise<void>) | undefined
    await tracked.page.route(`${origin}/_data/static-page`, (route) => {
      releaseStatic = () => route.continue()
    })
    await tracked.page.goto(`${origin}/noisy`)
    await waitForHydration(tracked.page)
    await tracked.page.locator('html[data-monitoring="on"]').waitFor({ state: 'attached' })

    // A redirect (/moved -> /target), then a not-found page.
    await visitRedirectThenNotFound(tracked)
    // A superseded navigation: /static-page is held while /target wins.
    await tracked.page.getByRole('link', { name: 'Static' }).click()
    await waitUntil(() => releaseStatic !== undefined, 'the held navigation')
    await tracked.page.getByRole('link', { name: 'Target' }).click()
    await tracked.page.locator('h1', { hasText: 'Target' }).waitFor()
    await releaseStatic!()
    // Chromium fails keepalive fetches (the SDK's transport) while requests are intercepted.
    await tracked.page.unrouteAll({ behavior: 'wait' })

    // Each navigation span ends when the next starts; the last ends on its own after idling.
    await ingest.waitFor(() => transactions().some((x) => x.name === '/target'), 'the last navigation')
    t.same(transactions(), [
      { name: '/noisy', op: 'pageload' },
      { name: '/noisy', op: 'navigation' }, // back from /target
      { name: '/noisy', op: 'navigation' }, // back from the 404
      { name: '/target', op: 'navigation' },
    ])
  })

  t.test('the page load of a not-found page is not reported', async (t) => {
    const tracked = await openPage(t)
    await tracked.page.goto(`${origin}/nope`)
    await waitForHydration(tracked.page)
    await tracked.page.locator('html[data-monitoring="on"]').waitFor({ state: 'attached' })
    await tracked.page.getByRole('link', { name: 'Go to the home page' }).click()
    await tracked.page.locator('h1', { hasText: 'Start' }).waitFor()
    await ingest.waitFor(() => transactions().some((x) => x.name === '/' && x.op === 'navigation'), 'the navigation home')
    t.notOk(transactions().some((x) => x.op === 'pageload' && x.name === '/nope'))
    t.equal(transactions().filter((x) => x.op === 'pageload').length, 1, 'only the earlier /noisy page load')
  })
})

t.test('without SENTRY_DSN the browser loads no monitoring at all', async (t) => {
  const { origin } = await browserTestApp(t, 'fixture')
  const tracked = await openPage(t, {}, [/Handler failed on purpose/])
  const scripts: string[] = []
  tracked.page.on('request', (request) => {
    if (request.resourceType() === 'script') scripts.push(request.url())
  })
  await tracked.page.goto(`${origin}/noisy`)
  await waitForHydration(tracked.page)
  await tracked.page.getByRole('button', { name: 'Throw', exact: true }).click()
  await waitUntil(() => tracked.errors.length === 1, 'the error happened')
  t.notOk(
    scripts.some((url) => url.includes('sentry')),
    'no SDK chunk requested',
  )
  t.equal(await tracked.page.locator('#__monitoring').count(), 0, 'no monitoring config in the page')
})
