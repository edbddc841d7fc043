// test-needs: chromium
/**
 * `npm run dev`, server code: an edit to a server module or to shared/ restarts the
 * server (and reloads an open tab once the new one answers); a loader or render error
 * shows its real message and stack, in the browser's overlay and in the terminal. Apart
 * from the page tests (dev-server.test.ts) so the two run side by side.
 */
import t from 'tap'
import { SERVER_ERROR_TEXT } from '../../shared/framework/error-texts.js'
import { openPage, waitForHydration } from '../helpers/browser.js'
import { assertReloadedThenHotUpdated, devGet as get, editServerCode as editServer, startDevServer, untilStatus } from '../helpers/dev-server.js'

t.test('server code: edits restart the server; failures show the real error in development', async (t) => {
  const dev = await startDevServer(t)

  // Each edit below restarts the server (seconds of CPU each): the tab tests also assert
  // what a request without a tab gets, rather than restarting for it on their own.
  t.test(
    'an edit to a server module is used by the next request; an open tab reloads once the new server answers, and HMR keeps working',
    async (t) => {
      // Vite's client pings the restarting server and logs its lost connection.
      const { page, documentRequests } = await openPage(t, {}, [/WebSocket connection to .* failed/, /server connection lost/])
      await page.goto(`${dev.origin}/about`)
      await waitForHydration(page)
      t.match((await get(dev, '/about')).body, '<p>This application')
      const from = dev.output().length
      await editServer(dev, 'server/pages/about.ts', (text) =>
        text.replace("paragraph:\n      'This application", "paragraph:\n      'Edited: this application"),
      )
      t.match((await get(dev, '/about')).body, '<p>Edited: this application', 'the next request uses the edit')
      await dev.waitForOutput(/\[dev\] restarted in \d+ ms/, from)
      t.match(dev.output().slice(from), /\[dev\] restarted in \d+ ms/, 'the terminal says how long the restart took')
      await page.getByText(/^Edited: this application/).waitFor({ timeout: 20_000 })
      t.equal(documentRequests.length, 2, 'the tab reloaded by itself, once')
      await waitForHydration(page)
      dev.edit('client/pages/about.tsx', (text) => text.replace('<h1>About</h1>', '<h1>About (edited)</h1>'))
      await page.getByRole('heading', { name: 'About (edited)' }).waitFor()
      t.equal(documentRequests.length, 2, 'the client edit applied in place, no reload')
    },
  )

  t.test('an edit to shared/ is used by the next request; an open tab reloads once, from the new server', async (t) => {
    const { page, documentRequests } = await openPage(t, {}, [/WebSocket connection to .* failed/, /server connection lost/])
    await page.goto(`${dev.origin}/contact`)
    await waitForHydration(page)
    const name = page.getByRole('textbox', { name: 'Name' })
    t.equal(await name.getAttribute('maxlength'), '80')
    t.match((await get(dev, '/contact')).body, 'maxLength="80"')
    const from = dev.output().length
    await editServer(dev, 'shared/routes.ts', (text) => text.replace('name: 80,', 'name: 50,'))
    t.match((await get(dev, '/contact')).body, 'maxLength="50"', 'the next request uses the edit')
    await dev.waitForOutput(/\[dev\] restarted in \d+ ms/, from)
    await page.locator('input[name="name"][maxlength="50"]').waitFor({ timeout: 20_000 })
    await waitForHydration(page)
    await assertReloadedThenHotUpdated(t, dev, page, documentRequests, 2, { file: 'client/pages/contact.tsx', heading: 'Contact' })
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
    await untilStatus(dev, '/about', 500)
    t.equal((await page.goto(`${dev.origin}/about`))?.status(), 500)
    const overlay = page.locator('vite-error-overlay')
    await overlay.locator('.message-body').getByText('render exploded on purpose').waitFor()
    t.match(await overlay.locator('.stack').textContent(), /client\/pages\/about\.tsx/)
    t.equal(await page.locator('h1').textContent(), SERVER_ERROR_TEXT)
  })
})
