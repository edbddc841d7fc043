/**
 * Browser figures against our server: first contentful paint and hydration of cold
 * loads of /items/7 and /about, and click-to-content (prefetched, cold), 10 runs each.
 */
import type { Browser } from 'playwright-core'
import { clickToContent, launchChromium, median } from '../bench-navigation.js'

type Path = '/items/7' | '/about'

export interface BrowserFigures {
  /** Medians of the cold loads, per page. */
  readonly firstLoadMedians: Record<string, { fcpMsMedian: number; hydratedMsMedian: number }>
  readonly prefetched: number[]
  readonly cold: number[]
}

/** A cold load (fresh context, empty cache): first contentful paint and hydration, ms from navigation start. */
async function firstLoad(browser: Browser, origin: string, path: string): Promise<{ fcp: number; hydrated: number }> {
  const context = await browser.newContext()
  const page = await context.newPage()
  const problems: string[] = []
  page.on('pageerror', (error) => problems.push(error.message))
  page.on('console', (message) => message.type() === 'error' && problems.push(message.text()))
  await page.goto(origin + path)
  await page
    .locator('html[data-hydrated="true"]')
    .waitFor({ state: 'attached' })
    .catch((error: unknown) => {
      throw new Error(`${path} did not become interactive: ${problems.join('; ') || 'no error in the page'}`, { cause: error })
    })
  await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0)
  const timings = await page.evaluate(() => ({
    fcp: performance.getEntriesByName('first-contentful-paint')[0]!.startTime,
    hydrated: performance.getEntriesByName('app:hydrated')[0]!.startTime,
  }))
  await context.close()
  return timings
}

export async function measureBrowser(origin: string): Promise<BrowserFigures> {
  const browser = await launchChromium()
  const loads: Record<Path, { fcp: number[]; hydrated: number[] }> = {
    '/items/7': { fcp: [], hydrated: [] },
    '/about': { fcp: [], hydrated: [] },
  }
  const prefetched: number[] = []
  const cold: number[] = []
  for (let run = 0; run < 10; run++) {
    for (const [path, series] of Object.entries(loads)) {
      const { fcp, hydrated } = await firstLoad(browser, origin, path)
      series.fcp.push(fcp)
      series.hydrated.push(hydrated)
    }
    prefetched.push(await clickToContent(browser, origin, true))
    cold.push(await clickToContent(browser, origin, false))
  }
  await browser.close()
  const firstLoadMedians = Object.fromEntries(
    Object.entries(loads).map(([path, series]) => [
      path,
      { fcpMsMedian: Number(median(series.fcp).toFixed(1)), hydratedMsMedian: Number(median(series.hydrated).toFixed(1)) },
    ]),
  )
  return { firstLoadMedians, prefetched, cold }
}
