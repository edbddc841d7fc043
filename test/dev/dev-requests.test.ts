// test-needs: chromium
/**
 * `npm run dev` answers what it should and only that: the project's files are 404s as
 * in production while the browser's modules load; a client module that cannot be
 * loaded fails the pages alone, with Vite's overlay, until the fix; a second one on a
 * port in use stops at once. The real command runs on a copy of the project, edited as a
 * developer would; the tests that break the app have a copy of their own.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { listenTestApp } from '../helpers/app.js'
import { openPage, waitForHydration } from '../helpers/browser.js'
import { devServerEnv, startDevServer, untilStatus } from '../helpers/dev-server.js'
import { rawRequest } from '../helpers/raw-http.js'

/** Whether any process of the group led by `pid` is still alive. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0)
    return true
  } catch {
    return false
  }
}

/** A GET of `target` exactly as written (fetch would resolve its dot segments and escapes). */
function rawGet(origin: string, target: string) {
  return rawRequest(origin, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)
}

// Neither test edits what the other reads: one server for both.
t.test('one npm run dev, as started', async (t) => {
  const dev = await startDevServer(t)

  t.test("the project's own files are 404s as in production; the browser's modules still load", async (t) => {
    const production = await listenTestApp(t, 'production')
    writeFileSync(path.join(dev.dir, '.env'), 'SECRET_IN_ENV=1\n')
    const files = path.join(dev.dir, 'server/main.ts')
    // Each with a line of the file that must not come back.
    const sources: Array<[string, string]> = [
      ['/server/main.ts', 'runServer'],
      ['/server/main.ts?import', 'runServer'],
      ['/server/main.ts?import&raw', 'runServer'],
      ['/%73erver/main.ts', 'runServer'],
      ['/server%2Fmain.ts', 'runServer'],
      ['/client/%2e%2e/server/main.ts', 'runServer'],
      ['/client%2F..%2Fserver%2Fmain.ts?raw', 'runServer'],
      ['/@id/server/main.ts', 'runServer'],
      [`/@fs${files}`, 'runServer'],
      [`/@fs${files}?raw`, 'runServer'],
      ['/package.json', '"devDependencies"'],
      ['/package.json?raw', '"devDependencies"'],
      ['/tsconfig.json', '"references"'],
      ['/vite.config.ts', 'defineConfig'],
      ['/scripts/dev.ts', 'watchFolder'],
      ['/index.html', '<!doctype html>'],
      ['/.env', 'SECRET_IN_ENV'],
      ['/.env?raw', 'SECRET_IN_ENV'],
      ['/@fs/etc/passwd', 'root:'],
    ]
    for (const [target, line] of sources) {
      const [inDev, inProduction] = await Promise.all([rawGet(dev.origin, target), rawGet(production.origin, target)])
      t.equal(inDev.status, inProduction.status, `${target}: ${inProduction.status} as in production`)
      t.equal(inDev.headers['content-type'], inProduction.headers['content-type'], `${target}: the same kind of answer`)
      t.notOk(inDev.body.includes(line), `${target}: not the file`)
    }

    const { page, failedResources } = await openPage(t)
    await page.goto(`${dev.origin}/items/7`)
    await waitForHydration(page)
    await page.getByRole('link', { name: 'About' }).first().click()
    await page.getByRole('heading', { name: 'About' }).waitFor()
    dev.edit('client/pages/about.tsx', (text) => text.replace('<h1>About</h1>', '<h1>About (edited)</h1>'))
    await page.getByRole('heading', { name: 'About (edited)' }).waitFor()
    t.same(failedResources, [], 'every module, dependency and style the pages asked for loaded')
  })

  t.test('a second npm run dev on a port in use exits at once, naming the port, and leaves nothing running', async (t) => {
    const port = new URL(dev.origin).port
    const second = spawn(process.execPath, ['--import', 'tsx', 'scripts/dev.ts'], {
      cwd: dev.dir,
      env: devServerEnv(port),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    let output = ''
    second.stdout.on('data', (chunk) => (output += chunk))
    second.stderr.on('data', (chunk) => (output += chunk))
    const killer = setTimeout(() => process.kill(-second.pid!, 'SIGKILL'), 20_000)
    const started = performance.now()
    const [code] = await once(second, 'exit')
    clearTimeout(killer)
    t.ok(performance.now() - started < 5_000, 'at once')
    t.equal(code, 1)
    t.notMatch(output, /\[vite\]|SESSION_SECRET/, 'before the server (and Vite) was started')
    t.match(output, `port ${port} is already in use on 127.0.0.1`)
    t.match(output, 'set PORT to another port', 'it says what to do')
    t.notOk(groupAlive(second.pid!), 'no process of it is left')
    t.equal((await fetch(`${dev.origin}/api/health`)).status, 200, 'the first one still answers')
  })
})

/** What a development error page says as it reloads for an edit saved before it connected. */
const EDITED_BEFORE_CONNECTED = '[app] client/ was edited before this page connected: reloading'

/** The open tab's hot update of the broken file fails first: Vite says so in the console. */
const HOT_UPDATE_FAILED = [/Failed to reload \/client\/layouts\/root\.tsx/, /\[vite\] Internal Server Error/]

t.test('a client module that cannot be loaded fails the pages alone, shows the overlay, and the tab recovers after the fix', async (t) => {
  const dev = await startDevServer(t)

  // First, while no tab ever loaded the layout: Vite has no module of it to update in
  // the browser, so only the error page's own reload brings the fix. The fix is saved
  // before the page's connection to Vite opens (held here), as a quick save on a busy
  // machine can be: the edit's event reaches no one, and the page asks once connected.
  t.test('an import of a module renamed away, before any tab was open', async (t) => {
    dev.edit('client/layouts/root.tsx', (text) => text.replace("from './theme-choice.js'", "from './theme-picker.js'"))
    await untilStatus(dev, '/about', 500)
    t.equal((await fetch(`${dev.origin}/api/health`)).status, 200, '/api still answers')
    const { page, documentRequests } = await openPage(t)
    const said: string[] = []
    page.on('console', (message) => said.push(message.text()))
    let connect!: () => void
    const held = new Promise<void>((resolve) => (connect = resolve))
    await page.routeWebSocket(/./, async (socket) => {
      await held
      socket.connectToServer()
    })
    t.equal((await page.goto(`${dev.origin}/about`))?.status(), 500)
    await page
      .locator('vite-error-overlay .message-body')
      .getByText(/theme-picker/)
      .waitFor()
    const reloads = documentRequests.length
    dev.edit('client/layouts/root.tsx', (text) => text.replace("from './theme-picker.js'", "from './theme-choice.js'"))
    await untilStatus(dev, '/about', 200)
    connect()
    await page.getByRole('heading', { name: 'About' }).waitFor({ timeout: 15_000 })
    await waitForHydration(page)
    t.ok(documentRequests.length > reloads, 'the tab reloaded by itself')
    t.ok(said.includes(EDITED_BEFORE_CONNECTED), 'once connected, for the edit it had missed')
  })

  t.test('a syntax error in a layout', async (t) => {
    const { page, documentRequests } = await openPage(t, {}, HOT_UPDATE_FAILED)
    await page.goto(`${dev.origin}/about`)
    await waitForHydration(page)
    dev.edit('client/layouts/root.tsx', (text) => text.replace('export default defineLayout', 'const broken = (;\nexport default defineLayout'))
    const body = await untilStatus(dev, '/about', 500)
    t.match(body, "from '/@vite/client'", 'the 500 page opens the overlay')
    const health = await fetch(`${dev.origin}/api/health`)
    t.equal(health.status, 200, '/api still answers')
    t.same(await health.json(), { status: 'ok' })
    t.equal((await fetch(`${dev.origin}/client/entry.tsx`)).status, 200, "Vite's modules still answer")
    t.equal((await fetch(`${dev.origin}/_data/about`)).status, 500, 'page data fails too, with the error payload')

    const said: string[] = []
    page.on('console', (message) => said.push(message.text()))
    const connected = page.waitForEvent('console', (message) => message.text() === '[vite] connected.')
    t.equal((await page.reload())?.status(), 500)
    // Answered after the last edit: once connected, the page stays.
    await connected
    const overlay = page.locator('vite-error-overlay')
    await overlay.locator('.message-body').getByText('Unexpected ";"').waitFor()
    t.match(await overlay.locator('.file').textContent(), /client\/layouts\/root\.tsx:\d+:\d+/, 'the overlay names the file and line')
    t.match(await overlay.locator('.frame').textContent(), 'const broken = (;', 'and shows the code')
    const reloads = documentRequests.length

    dev.edit('client/layouts/root.tsx', (text) => text.replace('const broken = (;\n', ''))
    await page.getByRole('heading', { name: 'About' }).waitFor({ timeout: 15_000 })
    await waitForHydration(page)
    t.ok(documentRequests.length > reloads, 'the tab reloaded by itself')
    t.equal(await overlay.count(), 0, 'no overlay left')
    t.notOk(said.includes(EDITED_BEFORE_CONNECTED), 'the error page answered after the last edit did not reload for it')
    t.equal((await fetch(`${dev.origin}/about`)).status, 200, 'the next request is a 200')
  })

  t.test('a server restarted while a layout is broken stops, and the fix of the layout starts it again', async (t) => {
    dev.edit('client/layouts/root.tsx', (text) => text.replace('export default defineLayout', 'const broken = (;\nexport default defineLayout'))
    await untilStatus(dev, '/about', 500)
    let from = dev.output().length
    dev.edit('server/pages/about.ts', (text) => text.replace("paragraph:\n      'This application", "paragraph:\n      'Edited: this application"))
    await dev.waitForOutput(/the server exited \(code 1\); waiting for an edit/, from)
    from = dev.output().length
    dev.edit('client/layouts/root.tsx', (text) => text.replace('const broken = (;\n', ''))
    await dev.waitForOutput(/client\/layouts\/root\.tsx changed: restarting the server[^]*Development server ready at /, from)
    t.match(await untilStatus(dev, '/about', 200), 'Edited: this application', 'the restarted server runs both edits')
  })
})
