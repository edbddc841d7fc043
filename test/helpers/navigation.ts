/**
 * The navigation tests' view of the fixture application in Chromium
 * (test/browser/navigation*.test.ts): a page opened and hydrated, the URL of a route's
 * chunk, how often a page's data was asked for.
 */
import type { Test } from 'tap'
import type { BuildManifest } from '../../shared/framework/build-manifest.js'
import { openPage, waitForHydration, type TrackedPage } from './browser.js'

export function navigationPages(origin: string, manifest: BuildManifest) {
  return {
    /** The URL of route `routeId`'s chunk. */
    chunkOf: (routeId: string) => `${origin}${manifest.routes[routeId]!.file}`,
    /** How many page-data requests for `path` the page has sent. */
    countOf: (tracked: TrackedPage, path: string) => tracked.dataRequests.filter((url) => url === `${origin}/_data${path}`).length,
    /** `path` opened in a new page and hydrated; `setup` runs before it loads (routes, clock). */
    async open(t: Test, path: string, setup?: (tracked: TrackedPage) => Promise<void>, expectedErrors: readonly RegExp[] = []) {
      const tracked = await openPage(t, {}, expectedErrors)
      await setup?.(tracked)
      await tracked.page.goto(origin + path)
      await waitForHydration(tracked.page)
      return tracked
    },
  }
}
