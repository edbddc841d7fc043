// test-needs: chromium
/**
 * LongList in Chromium, on the fixture's /list (600 items, each a button): the server
 * sends every item in groups, each group hydrates after the page on its own, and an
 * item answers a click made before its group had hydrated.
 */
import t from 'tap'
import { LONG_LIST_GROUP_SIZE } from '../../client/framework/view/long-list.js'
import { LIST_LENGTH, listLabels } from '../fixtures/app/routes.js'
import { browserTestApp } from '../helpers/app.js'
import { openPage, waitForHydration } from '../helpers/browser.js'

t.test('a long list', async (t) => {
  const { origin } = await browserTestApp(t, 'fixture')
  const groups = Math.ceil(LIST_LENGTH / LONG_LIST_GROUP_SIZE)

  t.test('the server sends every item, in order, one Suspense boundary per group', async (t) => {
    const response = await fetch(`${origin}/list`)
    t.equal(response.status, 200)
    const html = await response.text()
    const labels = [...html.matchAll(/<li><button type="button">([^<]*)<\/button><\/li>/g)].map((match) => match[1])
    t.same(labels, listLabels(LIST_LENGTH))
    const list = html.slice(html.indexOf('<ul>'), html.indexOf('</ul>'))
    t.equal(list.split('<!--$-->').length - 1, groups, `${groups} boundaries open`)
    t.equal(list.split('<!--/$-->').length - 1, groups, `${groups} boundaries close`)
  })

  t.test('every group hydrates without a click, and with no console error', async (t) => {
    const { page, errors } = await openPage(t)
    await page.goto(`${origin}/list`)
    await waitForHydration(page)
    // React's props on an element (a property React sets on each element it hydrates): its group has hydrated.
    await page.waitForFunction(
      () => [...document.querySelectorAll('li > button')].every((button) => Object.keys(button).some((key) => key.startsWith('__reactProps'))),
      undefined,
      { timeout: 10_000 },
    )
    await page.getByRole('button', { name: `Item ${LIST_LENGTH - 1}`, exact: true }).click()
    await page.getByRole('button', { name: `Item ${LIST_LENGTH - 1} picked` }).waitFor()
    t.equal(await page.locator('li').count(), LIST_LENGTH)
    t.same(errors, [])
  })

  t.test('a click in a group not hydrated yet is not lost: that group hydrates and handles it', async (t) => {
    const { page, errors } = await openPage(t)
    // Right after the page's first commit (the start script marks `app:hydrated` in it),
    // before any other task: the last group is still as the server sent it. Clicked then.
    await page.addInitScript(() => {
      const mark = performance.mark.bind(performance)
      performance.mark = (name: string, options?: PerformanceMarkOptions) => {
        const entry = mark(name, options)
        if (name === 'app:hydrated')
          queueMicrotask(() => {
            const buttons = document.querySelectorAll('li > button')
            const last = buttons[buttons.length - 1]!
            ;(window as any).__lastHadProps = Object.keys(last).some((key) => key.startsWith('__reactProps'))
            ;(last as HTMLButtonElement).click()
          })
        return entry
      }
    })
    await page.goto(`${origin}/list`)
    await page.getByRole('button', { name: `Item ${LIST_LENGTH - 1} picked` }).waitFor()
    t.equal(await page.evaluate(() => (window as any).__lastHadProps), false, 'the last group had not hydrated when clicked')
    t.same(errors, [])
  })

  t.test('client navigation between lists of other lengths shows each whole, in order', async (t) => {
    const { page, errors, documentRequests } = await openPage(t)
    await page.goto(`${origin}/list?n=700`)
    await waitForHydration(page)
    const labels = () => page.locator('li > button').allTextContents()
    t.same(await labels(), listLabels(700))
    await page.getByRole('button', { name: 'Item 650', exact: true }).click()
    await page.getByRole('button', { name: 'Item 650 picked' }).waitFor()
    await page.getByRole('link', { name: '300 items' }).click()
    await page.locator('h1', { hasText: 'List of 300' }).waitFor()
    t.same(await labels(), listLabels(300), 'one group fewer')
    await page.getByRole('link', { name: '700 items' }).click()
    await page.locator('h1', { hasText: 'List of 700' }).waitFor()
    t.same(await labels(), listLabels(700), 'one group more, none of its items picked')
    t.same(documentRequests, [`${origin}/list?n=700`], 'client navigations, not document loads')
    t.same(errors, [])
  })
})
