// test-needs: chromium
/**
 * `npm run dev`: what the open tab shows when an edit breaks the app, and that fixing
 * the edit brings the page back by itself. The tests run the real command on a copy of
 * the project and edit it as a developer would.
 */
import t from 'tap'
import { CLIENT_ERROR_TEXT } from '../../shared/framework/error-texts.js'
import { openPage, waitForHydration } from '../helpers/browser.js'
import { assertReloadedThenHotUpdated, startDevServer, type DevServer } from '../helpers/dev-server.js'
import { rawRequest } from '../helpers/raw-http.js'

const LOADER = '  loader: () => ({'
const LOAD_ERROR = "throw new Error('<img src=x onerror=alert(1)> loading exploded on purpose')"
/** Vite's client in a tab whose server went away. */
const SERVER_GONE = [/WebSocket connection to .* failed/, /server connection lost/]

/** Applies an edit to the server's code and waits until the restarted server has failed. */
async function breakServer(dev: DevServer, file: string, edit: (text: string) => string) {
  const from = dev.output().length
  dev.edit(file, edit)
  await dev.waitForOutput(/\[dev\] http:\/\/127\.0\.0\.1:\d+\/ shows the error until then/, from)
}

const ABOUT_COMPONENT = 'function AboutPage({ data }: PageProps<typeof routes.about>) {'

// One server for both. The broken server file goes first: the server its fix starts is
// a fresh one, as if just started, for the Fast Refresh test, whose fix renames
// whichever heading the first test left.
t.test('one npm run dev, broken and fixed', async (t) => {
  const dev = await startDevServer(t)

  t.test('a server file that cannot load: the open tab shows the error until the fix brings the page back', async (t) => {
    const { page, documentRequests } = await openPage(t, {}, SERVER_GONE)
    await page.goto(`${dev.origin}/about`)
    await waitForHydration(page)

    // Line 6 of the file: a syntax error.
    await breakServer(dev, 'server/pages/about.ts', (text) => text.replace(LOADER, `${LOADER}\n    broken: (1 +,`))
    const heading = page.getByRole('heading', { name: 'The development server could not start (code 1)' })
    await heading.waitFor({ timeout: 20_000 })
    t.match(
      await page.locator('.file').textContent(),
      /^server\/pages\/about\.ts:6:\d+$/,
      'the tab reloaded by itself into the error: the file and line',
    )
    t.match(await page.locator('.message').textContent(), /ERROR: Unexpected ","/, 'the message')
    t.match(await page.locator('.frame').textContent(), />\s+6 \|\s+broken: \(1 \+,/, 'the lines around it, the failing one marked')
    t.equal(documentRequests.length, 2, 'one reload')

    const reloaded = await page.reload()
    t.equal(reloaded?.status(), 500, 'a reload gets the same page, not a refused connection')
    t.match(await page.locator('.file').textContent(), /^server\/pages\/about\.ts:6:\d+$/, 'the same error')
    const answer = await fetch(`${dev.origin}/items/7`)
    const nonce = /script-src 'self' 'nonce-([^']+)'/.exec(answer.headers.get('content-security-policy') ?? '')?.[1]
    t.ok(nonce, "the app's CSP with a nonce")
    t.match(await answer.text(), `<script nonce="${nonce}">`, 'which the page script carries')
    t.equal(answer.headers.get('cache-control'), 'no-store', 'never cached')

    // Another failure, at load time, whose message is markup: the page shows it as text.
    await breakServer(dev, 'server/pages/about.ts', (text) =>
      text.replace(`${LOADER}\n    broken: (1 +,`, LOADER).replace("from '../framework/index.js'\n", `from '../framework/index.js'\n${LOAD_ERROR}\n`),
    )
    const message = page.locator('.message')
    await message.getByText('loading exploded on purpose').waitFor({ timeout: 20_000 })
    t.equal(await message.textContent(), '<img src=x onerror=alert(1)> loading exploded on purpose', 'the tab reloaded into the next error, escaped')
    t.equal(await page.locator('main img').count(), 0, 'no element made from it')
    t.match(await page.locator('.file').textContent(), /^server\/pages\/about\.ts:3:\d+$/, 'the line that threw')
    const elsewhere = await rawRequest(dev.origin, 'GET /about HTTP/1.1\r\nHost: rebound.test\r\nConnection: close\r\n\r\n')
    t.equal(elsewhere.status, 500, 'answered')
    t.notMatch(elsewhere.body, 'exploded', 'a name other than a loopback one is not shown the error')

    dev.edit('server/pages/about.ts', (text) => text.replace(`${LOAD_ERROR}\n`, ''))
    await page.getByRole('heading', { name: 'About', exact: true }).waitFor({ timeout: 20_000 })
    await waitForHydration(page)
    // The fix reloaded the tab into the page.
    await assertReloadedThenHotUpdated(t, dev, page, documentRequests, 5, { file: 'client/pages/about.tsx', heading: 'About' })
  })

  t.test('a render error in a Fast Refresh update: the overlay names it, the fix renders the page in place', async (t) => {
    // React's error boundary logs what it caught, as in production.
    const { page, documentRequests } = await openPage(t, {}, [/render exploded on purpose/])
    await page.goto(`${dev.origin}/about`)
    await waitForHydration(page)

    dev.edit('client/pages/about.tsx', (text) =>
      text.replace(ABOUT_COMPONENT, `${ABOUT_COMPONENT}\n  if (data) throw new Error('render exploded on purpose')`),
    )
    const overlay = page.locator('vite-error-overlay')
    await overlay.locator('.message-body').getByText('render exploded on purpose').waitFor()
    const stack = (await overlay.locator('.stack').textContent()) ?? ''
    t.match(stack, /client\/pages\/about\.tsx/, 'the stack points into the component')
    t.match(stack, /The above error occurred in:[^]*\bAboutPage\b/, 'and names the components it happened in')
    t.equal(await page.locator('h1').first().textContent(), CLIENT_ERROR_TEXT, "under it, the app's own error screen")
    t.same(documentRequests, [`${dev.origin}/about`], 'no reload')

    dev.edit('client/pages/about.tsx', (text) =>
      text.replace("\n  if (data) throw new Error('render exploded on purpose')", '').replace(/<h1>About[^<]*<\/h1>/, '<h1>About (fixed)</h1>'),
    )
    await page.getByRole('heading', { name: 'About (fixed)' }).waitFor()
    t.equal(await overlay.count(), 0, 'the overlay is gone')
    t.same(documentRequests, [`${dev.origin}/about`], 'the page rendered again in place, no reload')
  })
})
