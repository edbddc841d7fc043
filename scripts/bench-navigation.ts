/**
 * Click-to-content of a client navigation, in Chromium against the production build:
 * from the click on "Item list 2" on /items/7 to the first frame after the new page's
 * h1 is in the DOM, on a page at rest. Median of 20 runs each:
 * - prefetched: the pointer rested on the link (intent), its data and chunk already loaded;
 * - cold: prefetch off (Data Saver emulated), so the click pays for the request.
 *
 *   npm run bench:navigation      (CHROMIUM_PATH overrides /usr/bin/chromium)
 */
import { spawn } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type Browser } from 'playwright-core'
import { buildClient, buildServer } from './build.js'

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const RUNS = 20

async function startServer(): Promise<{ origin: string; stop: () => void }> {
  await buildClient({ entry: 'client/entry.tsx', pagesDir: 'client/pages', outDir: path.join(projectRoot, 'dist/client') })
  await buildServer(path.join(projectRoot, 'dist/server'))
  const child = spawn(process.execPath, ['dist/server/main.js'], {
    cwd: projectRoot,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const origin = await new Promise<string>((resolve, reject) => {
    let output = ''
    child.stdout.on('data', (chunk) => {
      output += chunk
      const found = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)
      if (found) resolve(found[1]!)
    })
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)))
  })
  child.stdout.resume()
  return { origin, stop: () => child.kill('SIGTERM') }
}

export async function clickToContent(browser: Browser, origin: string, prefetch: boolean): Promise<number> {
  const context = await browser.newContext()
  try {
    const page = await context.newPage()
    if (!prefetch) {
      await page.addInitScript(() => Object.defineProperty(navigator, 'connection', { value: { saveData: true } }))
    }
    await page.goto(`${origin}/items/7`)
    await page.locator('html[data-hydrated="true"]').waitFor({ state: 'attached' })
    if (prefetch) {
      // A dynamic page is prefetched on intent: the pointer rests on the link first, as a
      // user's does before the click, and its data has come.
      await page.getByRole('link', { name: 'Item list 2', exact: true }).first().hover()
      await page.waitForFunction(() => performance.getEntriesByType('resource').some((e) => e.name.includes('/_data/items/2')))
    }
    // Measure a page at rest: prefetches answered, chunks parsed, nothing else running.
    for (let i = 0; i < 2; i++) {
      await page.evaluate(() => new Promise((resolve) => requestIdleCallback(resolve, { timeout: 2000 })))
    }
    return await page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          const link = Array.from(document.querySelectorAll('a')).find((a) => a.textContent === 'Item list 2')!
          const main = document.getElementById('main')!
          let start = 0
          const observer = new MutationObserver(() => {
            if (document.querySelector('h1')?.textContent !== 'Item list 2') return
            observer.disconnect()
            requestAnimationFrame(() => resolve(performance.now() - start))
          })
          observer.observe(main, { subtree: true, childList: true, characterData: true })
          start = performance.now()
          link.click()
        }),
    )
  } finally {
    await context.close()
  }
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  })
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const server = await startServer()
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  })
  try {
    const results: Record<string, number[]> = { prefetched: [], cold: [] }
    for (let run = 0; run < RUNS; run++) {
      results.prefetched!.push(await clickToContent(browser, server.origin, true))
      results.cold!.push(await clickToContent(browser, server.origin, false))
    }
    console.log(`click-to-content, /items/7 -> /items/2, median of ${RUNS} (ms):`)
    for (const [kind, values] of Object.entries(results)) {
      console.log(
        `  ${kind.padEnd(10)} ${median(values).toFixed(1).padStart(7)}   (min ${Math.min(...values).toFixed(1)}, max ${Math.max(...values).toFixed(1)})`,
      )
    }
  } finally {
    await browser.close()
    server.stop()
  }
}
