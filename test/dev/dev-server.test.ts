// test-needs: chromium
/**
 * `npm run dev`: the same app served with Vite (edits to server code and its failures:
 * dev-server-edits.test.ts). The tests run the real command on a copy of the project
 * and edit that copy as a developer would; the helper stops every process it started.
 */
import t from 'tap'
import { createTestApp } from '../helpers/app.js'
import { openPage, waitForHydration } from '../helpers/browser.js'
import { devGet as get, startDevServer } from '../helpers/dev-server.js'
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

// One server for the pages and the host check: a start is seconds of CPU. ALLOWED_HOSTS
// names the address the tests use as well; the other dev tests run with it unset.
t.test('pages: server-rendered like production, then Fast Refresh; ALLOWED_HOSTS as in production', async (t) => {
  const dev = await startDevServer(t, { ALLOWED_HOSTS: '127.0.0.1,app.test' })

  t.test('ALLOWED_HOSTS holds in development as in production: those names are answered, modules included', async (t) => {
    for (const path of ['/about', '/client/entry.tsx', '/api/health']) {
      const named = await rawRequest(dev.origin, `GET ${path} HTTP/1.1\r\nHost: app.test\r\nConnection: close\r\n\r\n`)
      t.equal(named.status, 200, `${path} for a host ALLOWED_HOSTS names (Vite's own host check would refuse it)`)
    }
    const other = await rawRequest(dev.origin, 'GET /about HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n')
    t.equal(other.status, 421, 'another name is refused the app way')
  })

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
