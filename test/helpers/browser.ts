/**
 * Real Chromium (Debian's headless shell, or a full Chromium) driven by
 * playwright-core. scripts/test.ts finds or installs it and passes CHROMIUM_PATH.
 * Every page records console errors and uncaught exceptions, and fails its test on
 * any the test did not declare (`expectedErrors`); tests may assert on the recorded
 * ones too.
 */
import tap from 'tap'
import { chromium, type Browser, type BrowserContextOptions, type Page, type Request, type Response } from 'playwright-core'

type Test = { teardown(fn: () => unknown): void; fail(message: string): unknown }

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

const EXECUTABLE = process.env.CHROMIUM_PATH || '/usr/bin/chromium-headless-shell'
let shared: Promise<Browser> | undefined

/** One browser per test process; each test gets its own context (cookies, cache). */
function launch(): Promise<Browser> {
  shared ??= chromium.launch({ executablePath: EXECUTABLE, args: CHROMIUM_ARGS }).then((browser) => {
    // Closed when the file's last test is done, or the process would stay alive.
    tap.teardown(() => browser.close())
    return browser
  })
  return shared
}

export interface TrackedPage {
  readonly page: Page
  /** Console errors and uncaught exceptions, in order (resource statuses apart). */
  readonly errors: string[]
  /**
   * URLs whose HTTP error status Chromium reported in the console ("Failed to load
   * resource: ... 404"): expected for a 404 document or a prefetched failing page.
   */
  readonly failedResources: string[]
  /** Every document (full page load) request the page made. */
  readonly documentRequests: string[]
  /** Every page-data request, when it was sent. */
  readonly dataRequests: string[]
  /** Every page-data request whose answer has fully arrived. */
  readonly dataFinished: string[]
}

/**
 * A fresh browser context and page for the test. A console error or uncaught
 * exception that matches none of `expectedErrors` fails the test at once (a hydration
 * warning, a CSP violation, a crash the test did not cause on purpose).
 */
export async function openPage(t: Test, options: BrowserContextOptions = {}, expectedErrors: readonly RegExp[] = []): Promise<TrackedPage> {
  const browser = await launch()
  const context = await browser.newContext(options)
  t.teardown(() => context.close())
  const page = await context.newPage()
  const errors: string[] = []
  const failedResources: string[] = []
  const documentRequests: string[] = []
  const dataRequests: string[] = []
  const dataFinished: string[] = []
  const isData = (request: Request) => new URL(request.url()).pathname.startsWith('/_data/')
  page.on('requestfinished', (request) => {
    if (isData(request)) dataFinished.push(request.url())
  })
  const record = (text: string) => {
    errors.push(text)
    if (!expectedErrors.some((expected) => expected.test(text))) t.fail(`unexpected error in the browser: ${text}`)
  }
  page.on('console', (message) => {
    if (message.type() !== 'error') return
    if (message.text().startsWith('Failed to load resource:')) failedResources.push(message.location().url)
    else record(message.text())
  })
  page.on('pageerror', (error) => record(`uncaught: ${error.message}`))
  page.on('request', (request: Request) => {
    if (request.resourceType() === 'document') documentRequests.push(request.url())
    if (isData(request)) dataRequests.push(request.url())
  })
  return { page, errors, failedResources, documentRequests, dataRequests, dataFinished }
}

/** Resolves once React has hydrated the page (client/framework/browser/start.tsx marks `<html>`). */
export async function waitForHydration(page: Page): Promise<void> {
  await page.locator('html[data-hydrated="true"]').waitFor({ state: 'attached' })
}

/**
 * Posts `fields` to the page's URL as a document load, as a form sent before the page
 * hydrated (or from a crafted page) arrives: none of the app's scripts take part.
 * Resolves with the answer to the post; the browser then shows it.
 */
export async function postAsDocument(page: Page, fields: Readonly<Record<string, string>>): Promise<Response> {
  const [answer] = await Promise.all([
    page.waitForResponse((response) => response.request().method() === 'POST'),
    page.evaluate((fields) => {
      const form = document.createElement('form')
      form.method = 'post'
      for (const [name, value] of Object.entries(fields)) form.append(Object.assign(document.createElement('input'), { type: 'hidden', name, value }))
      document.body.append(form)
      form.submit()
    }, fields),
  ])
  return answer
}

/** Lets the main thread run: React commits and effects have happened after this. */
export async function settle(tracked: TrackedPage): Promise<void> {
  await tracked.page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))))
}

/**
 * Waits until the page itself has received every one of `urls` whole (their resource
 * timing entries, written when a body is in) and has run those that are scripts, then
 * lets it run. A prefetched page goes into the cache only once both its data and its
 * route's chunk are in; until then a click joins the load still under way. Playwright's
 * `requestfinished` comes from the browser's network side and can precede that on a
 * loaded machine; and a chunk's body in is not the chunk run: it is compiled (off the
 * main thread, on a loaded machine more than a frame later) and run after. The page's own
 * `import()` of it resolves once it has run, then the prefetch's continuations follow.
 */
export async function settleAfter(tracked: TrackedPage, ...urls: string[]): Promise<void> {
  // An observer, not performance.getEntriesByName: Playwright's clock replaces `performance` with a stub that has no entries.
  const arrived = tracked.page.evaluate(
    (urls) =>
      new Promise<void>((resolve) => {
        const missing = new Set(urls)
        const observer = new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) missing.delete(entry.name)
          if (missing.size > 0) return
          observer.disconnect()
          resolve()
        })
        observer.observe({ type: 'resource', buffered: true })
      }),
    urls,
  )
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the page did not receive ${urls.join(' and ')} within 10 s`)), 10_000)
  })
  await Promise.race([arrived, timeout]).finally(() => clearTimeout(timer))
  const scripts = urls.filter((url) => new URL(url).pathname.endsWith('.js'))
  await tracked.page.evaluate((scripts) => Promise.all(scripts.map((url) => import(url))).then(() => undefined), scripts)
  await settle(tracked)
}

/** Fills the production app's contact form with a valid message from `name`. */
export async function fillContactForm(page: Page, name: string, message: string): Promise<void> {
  await page.getByLabel('Name').fill(name)
  await page.getByLabel('Email').fill('sender@example.com')
  await page.getByLabel('Message').fill(message)
}
