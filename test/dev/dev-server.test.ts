// test-needs: chromium
/**
 * `npm run dev`: the same app served with Vite. Each test runs the real
 * command on its own copy of the project and edits that copy as a developer would;
 * the helper stops every process it started.
 */
import t from 'tap'
import { SERVER_ERROR_TEXT } from '../../shared/framework/error-texts.js'
import { createTestApp } from '../helpers/app.js'
import { openPage, waitForHydration } from '../helpers/browser.js'
import { startDevServer, type DevServer } from '../helpers/dev-server.js'
import { rawRequest } from '../helpers/raw-http.js'

/** Every `<script>` carries the nonce the CSP header names. */
function scriptsCarryNonce(html: string, csp: string): boolean {
  const nonce = /script-src[^;]*'nonce-([^']+)'/.exec(csp)?.[1]
  const scripts = html.match(/<script\b[^>]*>/g) ?? []
  return nonce !== undefined && scripts.length > 0 && scripts.every((tag) => tag.includes(`nonce="${nonce}"`))
}

/**
 * A document with what may differ between dev and production taken out: asset URLs
 * (hashed files vs Vite's source URLs), modulepreloads (one per chunk vs one per
 * module), Vite's own scripts, nonces (development never caches a page, so even a
 * static one has a nonce there; production's static pages need none) and the build id.
 */
function comparable(html: string): string {
  return (
    html
      .replace(/<link rel="modulepreload"[^>]*>/g, '')
      // Production writes the stylesheet into the document, development links Vite's. A
      // test build keeps the stylesheet's comments, which may quote markup (`<html>`).
      .replace(/<style>[\s\S]*?<\/style>/g, '<link rel="stylesheet" href="/assets/style.css">')
      .replace(/<meta property="csp-nonce"[^>]*>/g, '')
      .replace(/<script type="module" nonce="[^"]*">[^<]*<\/script>/g, '')
      .replace(/ nonce="[^"]*"/g, '')
      .replace(/ (href|src)="\/(assets|client)\/[^"]*"/g, ' $1="ASSET"')
      .replace(/"buildId":"[^"]*"/g, '"buildId":"B"')
  )
}

/** A CSP header as directive -> sources, nonces taken out. */
function directives(csp: string): Record<string, string[]> {
  return Object.fromEntries(
    csp.split(';').map((directive) => {
      const [name, ...sources] = directive.trim().split(/\s+/)
      return [name!, sources.filter((source) => !source.startsWith("'nonce-")).sort()]
    }),
  )
}

async function get(dev: DevServer, path: string) {
  const response = await fetch(dev.origin + path)
  return { status: response.status, headers: response.headers, body: await response.text() }
}

/** Applies an edit to the server's code and waits until the restarted server is ready. */
async function editServer(dev: DevServer, file: string, edit: (text: string) => string) {
  const from = dev.output().length
  dev.edit(file, edit)
  await dev.waitForOutput(new RegExp(`${file.replace(/[.]/g, '\\.')} changed: restarting[^]*Development server ready at `), from)
}

t.test('pages: server-rendered like production, then Fast Refresh', async (t) => {
  const dev = await startDevServer(t)

  t.test('/items/7 is server-rendered HTML with Vite and React Refresh loaded, every script with the nonce', async (t) => {
    const { status, headers, body } = await get(dev, '/items/7')
    t.equal(status, 200)
    t.match(headers.get('content-type'), /^text\/html/)
    t.equal(headers.get('cache-control'), 'private, no-store')
    t.match(body, '<h1>Item list 7</h1>')
    t.match(body, '<td>row-7-199</td>', 'the 200 rows are in the HTML')
    t.match(body, "import '/@vite/client'")
    t.match(body, '/@react-refresh')
    t.ok(scriptsCarryNonce(body, headers.get('content-security-policy') ?? ''), 'every script has the CSP nonce')
    const health = await get(dev, '/api/health')
    t.equal(health.status, 200)
    t.same(JSON.parse(health.body), { status: 'ok' }, '/api is the same app')
  })

  t.test("the development CSP is production's plus what Vite's client needs: a worker from a blob", async (t) => {
    const production = await createTestApp(t, 'production')
    const built = directives(String((await production.app.inject('/about')).headers['content-security-policy']))
    // Production's inline stylesheet is allowed by its hash; development has none (Vite injects styles with the nonce).
    t.equal(built['style-src']!.filter((source) => source.startsWith("'sha256-")).length, 1, 'production allows its inline stylesheet by hash')
    built['style-src'] = built['style-src']!.filter((source) => !source.startsWith("'sha256-"))
    const development = directives((await get(dev, '/about')).headers.get('content-security-policy') ?? '')
    t.same(development, { ...built, 'worker-src': ["'self'", 'blob:'] })
    t.notOk('worker-src' in built, 'production allows no blob worker')
  })

  t.test("the terminal has one line per page, data or action request, none for Vite's modules", async (t) => {
    const from = dev.output().length
    const { page } = await openPage(t)
    // A query no other test asks for: a line from an earlier request may still arrive.
    await page.goto(`${dev.origin}/about?log=1`)
    await waitForHydration(page)
    await page.getByRole('link', { name: 'See item list 1' }).click()
    await page.getByRole('heading', { name: 'Item list 1' }).waitFor()
    await dev.waitForOutput(/GET \/_data\/items\/1 200 \d+ ms/, from)
    const lines = dev
      .output()
      .slice(from)
      .split('\n')
      .filter((line) => / (GET|POST|HEAD) \//.test(line))
    t.equal(lines.filter((line) => / GET \/about\?log=1 200 \d+ ms/.test(line)).length, 1, 'the page: one line, status and duration')
    t.equal(lines.filter((line) => /GET \/_data\/items\/1 200 \d+ ms/.test(line)).length, 1, 'its data: one line')
    t.same(
      lines.filter((line) => /\/(client|@vite|@react-refresh|@fs|node_modules)\//.test(line) || /\.(tsx|css|js)\b/.test(line)),
      [],
      'nothing for the modules Vite served',
    )
  })

  t.test('the example screens render the same markup as in production, asset URLs apart', async (t) => {
    const production = await createTestApp(t, 'production')
    for (const path of ['/', '/items/7', '/about', '/contact', '/nope']) {
      const built = await production.app.inject({ url: path })
      const dev_ = await get(dev, path)
      t.equal(dev_.status, built.statusCode, `${path}: same status`)
      t.equal(comparable(dev_.body), comparable(built.body), `${path}: same markup`)
    }
  })

  t.test('an edit to a page component shows up in place, keeping component state', async (t) => {
    const { page, errors, documentRequests } = await openPage(t)
    await page.goto(`${dev.origin}/items/7`)
    await waitForHydration(page)
    const counter = page.locator('button.counter')
    for (let i = 0; i < 3; i++) await counter.click()
    await page.getByText('Clicked 3 times').waitFor()

    dev.edit('client/pages/items.tsx', (text) => text.replace('<h1>{data.title}</h1>', '<h1>{data.title} (edited)</h1>'))
    await page.getByRole('heading', { name: 'Item list 7 (edited)' }).waitFor()
    t.equal(await counter.textContent(), 'Clicked 3 times', 'the counter kept its state')
    t.same(documentRequests, [`${dev.origin}/items/7`], 'no reload')
    t.same(errors, [])

    const { body } = await get(dev, '/items/7')
    t.ok(/<h1>Item list 7(<!-- -->)? \(edited\)<\/h1>/.test(body), 'the next server render has the edit too')

    // A stylesheet edit is applied in place too: Vite's <style> carries the CSP nonce.
    dev.edit('client/styles.css', (text) => `${text}\n.counter { color: rgb(1, 2, 3); }\n`)
    await page.waitForFunction(() => getComputedStyle(document.querySelector('button.counter')!).color === 'rgb(1, 2, 3)')
    t.equal(await counter.textContent(), 'Clicked 3 times', 'still no reload')
    t.same(documentRequests, [`${dev.origin}/items/7`])
    t.same(errors, [], 'no CSP violation')
  })
})

t.test('server code: edits restart the server; failures show the real error in development', async (t) => {
  const dev = await startDevServer(t)

  t.test('an edit to a server module is used by the next request', async (t) => {
    t.match((await get(dev, '/items/7')).body, '<h1>Item list 7</h1>')
    await editServer(dev, 'server/pages/items.ts', (text) => text.replace('title: `Item list ${id}`', 'title: `Edited list ${id}`'))
    t.match((await get(dev, '/items/7')).body, '<h1>Edited list 7</h1>')
  })

  t.test('with a tab open, a server edit reloads the tab once the new server answers, and HMR keeps working', async (t) => {
    // Vite's client pings the restarting server and logs its lost connection.
    const { page, documentRequests } = await openPage(t, {}, [/WebSocket connection to .* failed/, /server connection lost/])
    await page.goto(`${dev.origin}/about`)
    await waitForHydration(page)
    const from = dev.output().length
    await editServer(dev, 'server/pages/about.ts', (text) =>
      text.replace("paragraph:\n      'This application", "paragraph:\n      'Edited: this application"),
    )
    await dev.waitForOutput(/\[dev\] restarted in \d+ ms/, from)
    t.match(dev.output().slice(from), /\[dev\] restarted in \d+ ms/, 'the terminal says how long the restart took')
    await page.getByText(/^Edited: this application/).waitFor({ timeout: 20_000 })
    t.equal(documentRequests.length, 2, 'the tab reloaded by itself, once')
    await waitForHydration(page)
    dev.edit('client/pages/about.tsx', (text) => text.replace('<h1>About</h1>', '<h1>About (edited)</h1>'))
    await page.getByRole('heading', { name: 'About (edited)' }).waitFor()
    t.equal(documentRequests.length, 2, 'the client edit applied in place, no reload')
  })

  t.test('an edit to shared/ is used by the next request', async (t) => {
    t.match((await get(dev, '/contact')).body, 'maxLength="80"')
    await editServer(dev, 'shared/routes.ts', (text) => text.replace('name: 80,', 'name: 60,'))
    t.match((await get(dev, '/contact')).body, 'maxLength="60"')
  })

  t.test('with a tab open, an edit to shared/ reloads the tab once, from the new server', async (t) => {
    const { page, documentRequests } = await openPage(t, {}, [/WebSocket connection to .* failed/, /server connection lost/])
    await page.goto(`${dev.origin}/contact`)
    await waitForHydration(page)
    const name = page.getByRole('textbox', { name: 'Name' })
    const before = await name.getAttribute('maxlength')
    const from = dev.output().length
    await editServer(dev, 'shared/routes.ts', (text) => text.replace(`name: ${before},`, 'name: 50,'))
    await dev.waitForOutput(/\[dev\] restarted in \d+ ms/, from)
    await page.locator('input[name="name"][maxlength="50"]').waitFor({ timeout: 20_000 })
    await waitForHydration(page)
    t.equal(documentRequests.length, 2, 'the tab reloaded by itself, once')
    dev.edit('client/pages/contact.tsx', (text) => text.replace('<h1>Contact</h1>', '<h1>Contact (edited)</h1>'))
    await page.getByRole('heading', { name: 'Contact (edited)' }).waitFor()
    t.equal(documentRequests.length, 2, 'and hot updates go on in place')
  })

  t.test('a loader error: the overlay in the browser and the terminal have its message and stack', async (t) => {
    await editServer(dev, 'server/pages/items.ts', (text) =>
      text.replace(
        'loader: ({ params }) => {',
        "loader: ({ params }) => {\n    if (params.id === '13') throw new Error('loader exploded on purpose')",
      ),
    )
    const from = dev.output().length
    const { page, errors } = await openPage(t)
    const response = await page.goto(`${dev.origin}/items/13`)
    t.equal(response?.status(), 500)
    const overlay = page.locator('vite-error-overlay')
    await overlay.locator('.message-body').getByText('loader exploded on purpose').waitFor()
    t.match(await overlay.locator('.stack').textContent(), /server\/pages\/items\.ts/, 'the stack points into the loader')
    t.equal(
      await page.locator('main h1').first().textContent(),
      'This item list could not be shown.',
      "the page itself is production's: the items layout's error component, the sidebar still there",
    )
    t.equal(await page.getByRole('complementary', { name: 'Item lists' }).count(), 1)
    t.match(await page.locator('.digest').textContent(), /^Digest: \w+/)
    const terminal = /loader exploded on purpose[^]*\n\s+at .*server\/pages\/items\.ts:\d+/
    await dev.waitForOutput(terminal, from)
    t.match(dev.output().slice(from), terminal, 'the terminal has the message and the stack')
    t.same(errors, [])
  })

  t.test('a render error: the 500 page opens the overlay with the component error', async (t) => {
    dev.edit('client/pages/about.tsx', (text) =>
      text.replace(
        'function AboutPage({ data }: PageProps<typeof routes.about>) {',
        "function AboutPage({ data }: PageProps<typeof routes.about>) {\n  if (data) throw new Error('render exploded on purpose')",
      ),
    )
    const { page } = await openPage(t)
    // The edit reaches Vite's module runner through its file watcher: load until it has.
    const deadline = Date.now() + 15_000
    let status = 0
    while (status !== 500 && Date.now() < deadline) status = (await page.goto(`${dev.origin}/about`))?.status() ?? 0
    t.equal(status, 500)
    const overlay = page.locator('vite-error-overlay')
    await overlay.locator('.message-body').getByText('render exploded on purpose').waitFor()
    t.match(await overlay.locator('.stack').textContent(), /client\/pages\/about\.tsx/)
    t.equal(await page.locator('h1').textContent(), SERVER_ERROR_TEXT)
  })
})

t.test('ALLOWED_HOSTS holds in development as in production: those names are answered, modules included', async (t) => {
  const dev = await startDevServer(t, { ALLOWED_HOSTS: 'app.test' })
  for (const path of ['/about', '/client/entry.tsx', '/api/health']) {
    const named = await rawRequest(dev.origin, `GET ${path} HTTP/1.1\r\nHost: app.test\r\nConnection: close\r\n\r\n`)
    t.equal(named.status, 200, `${path} for a host ALLOWED_HOSTS names (Vite's own host check would refuse it)`)
  }
  const other = await rawRequest(dev.origin, 'GET /about HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n')
  t.equal(other.status, 421, 'another name is refused the app way')
})
