// test-needs: chromium
/**
 * Layouts in Chromium: a layout stays mounted (its state survives) between two pages
 * in it and its data is reused, in one request per navigation; failures and render
 * errors show inside the nearest layout, which keeps working; the chrome is set in the
 * body text's one face, the current page marked without bold; the theme choice applies
 * at once, without JavaScript too, and both themes meet WCAG AA.
 */
import t from 'tap'
import { browserTestApp } from '../helpers/app.js'
import { openPage, postAsDocument, waitForHydration } from '../helpers/browser.js'
import { waitUntil } from '../helpers/wait.js'
import { CACHED_LAYOUTS_HEADER } from '../../shared/framework/constants.js'

t.test('the items layout of the production app', async (t) => {
  const { origin } = await browserTestApp(t)

  t.test('text typed in the filter survives /items/1 -> /items/2; the sidebar data is not fetched again', async (t) => {
    const { page, dataRequests, documentRequests } = await openPage(t)
    const held: Array<string | undefined> = []
    const answers: Array<Promise<unknown>> = []
    page.on('request', (request) => {
      if (request.url() === `${origin}/_data/items/2`) held.push(request.headers()[CACHED_LAYOUTS_HEADER])
    })
    page.on('response', (response) => {
      if (response.url() === `${origin}/_data/items/2`) answers.push(response.json())
    })
    await page.goto(`${origin}/items/1`)
    await waitForHydration(page)
    const sidebar = page.getByRole('complementary', { name: 'Item lists' })
    t.equal(await sidebar.getByRole('link').count(), 10, 'item lists 1 to 10')
    t.equal(await sidebar.locator('a[aria-current="page"]').textContent(), 'Item list 1', 'the current list is marked')
    await sidebar.getByRole('searchbox', { name: 'Filter lists' }).fill('list 2')
    t.equal(await sidebar.getByRole('link').count(), 1, 'the filter filters')
    await sidebar.getByRole('link', { name: 'Item list 2' }).click()
    await page.locator('main h1', { hasText: 'Item list 2' }).waitFor()
    t.equal(await sidebar.getByRole('searchbox', { name: 'Filter lists' }).inputValue(), 'list 2', 'the layout was not remounted')
    t.equal(await sidebar.locator('a[aria-current="page"]').textContent(), 'Item list 2')
    t.same(documentRequests, [`${origin}/items/1`])
    t.equal(dataRequests.filter((url) => url.startsWith(`${origin}/_data/items/2`)).length, 1, 'one request for the navigation')
    t.same(held, ['items'], 'it named the layout data the browser holds')
    const answer = (await answers[0]) as { layouts?: unknown; data: { title: string } }
    t.equal(answer.layouts, undefined, 'and the answer left it out')
    t.equal(answer.data.title, 'Item list 2')
  })
  t.test("the page's own state starts afresh on another list (the layout's stays); a title that throws leaves the app standing", async (t) => {
    const { page } = await openPage(t, {}, [/Cannot read properties of undefined/])
    // List 5's data as its page's head() does not expect it (no rows): see the end.
    await page.route(`${origin}/_data/items/5`, async (route) => {
      const response = await route.fetch()
      const { data, ...rest } = await response.json()
      await route.fulfill({ response, json: { ...rest, data: { ...data, rows: undefined } } })
    })
    await page.goto(`${origin}/items/1`)
    await waitForHydration(page)
    const counter = page.locator('main button.counter')
    for (let i = 0; i < 3; i++) await counter.click()
    t.equal(await counter.textContent(), 'Clicked 3 times')
    const sidebar = page.getByRole('complementary', { name: 'Item lists' })
    await sidebar.getByRole('searchbox', { name: 'Filter lists' }).fill('list')
    await sidebar.getByRole('link', { name: 'Item list 2' }).click()
    await page.locator('main h1', { hasText: 'Item list 2' }).waitFor()
    t.equal(await counter.textContent(), 'Clicked 0 times', "list 2's counter is its own")
    t.equal(await sidebar.getByRole('searchbox', { name: 'Filter lists' }).inputValue(), 'list', 'the layout kept its state')

    // The list's boundary shows, the chrome stays.
    await sidebar.getByRole('link', { name: 'Item list 5' }).click()
    await page.getByRole('heading', { name: 'This item list could not be shown.' }).waitFor()
    t.equal(await page.title(), 'Application error')
    t.ok(await page.getByRole('navigation', { name: 'Main' }).isVisible(), 'the header is still there')
    await sidebar.getByRole('link', { name: 'Item list 3' }).click()
    await page.locator('main h1', { hasText: 'Item list 3' }).waitFor()
    t.equal(await page.title(), 'Item list 3', 'and the next page shows as usual')
  })

  t.test("the chrome is set in one face, the body text's, and the current page is marked without bold", async (t) => {
    const { page } = await openPage(t)
    await page.goto(`${origin}/items/3`)
    await waitForHydration(page)
    // Each other family, size or weight is one more font set up before the first paint
    // (docs/decisions/019-first-frame-fonts.md).
    // (No named functions inside: tsx would wrap them in a helper the page does not have.)
    const faces = await page.evaluate(() => {
      const withText = [document.querySelector('main p')!, ...document.querySelectorAll('.site-header *, .site-footer *, .sidebar *')].filter(
        (element) => [...element.childNodes].some((node) => node.nodeType === Node.TEXT_NODE && node.textContent!.trim() !== ''),
      )
      const [body, ...chrome] = withText.map((element) => {
        const style = getComputedStyle(element)
        return `${style.fontFamily} ${style.fontSize} ${style.fontWeight}`
      })
      return { bodyIsTheParagraph: withText[0] === document.querySelector('main p'), body: body!, chrome: [...new Set(chrome)] }
    })
    t.ok(faces.bodyIsTheParagraph, 'the reference is the page text')
    t.match(faces.body, /^Arial, sans-serif 16px 400$/, 'the body text is Arial at the default size')
    t.same(faces.chrome, [faces.body], 'header, footer and sidebar text use that face alone')
    for (const [where, current, other] of [
      ['header nav', '.site-header nav a[aria-current="page"]', '.site-header nav a:not([aria-current])'],
      ['sidebar', '.sidebar a[aria-current="page"]', '.sidebar a:not([aria-current])'],
    ] as const) {
      const looks = await page.evaluate(
        ([current, other]) =>
          [current, other].map((selector) => {
            const style = getComputedStyle(document.querySelector(selector)!)
            return { color: style.color, underline: style.textDecorationLine }
          }),
        [current, other] as const,
      )
      t.not(looks[0]!.color, looks[1]!.color, `${where}: the current page's link has its own colour`)
      t.equal(looks[0]!.underline, 'none', `${where}: and no underline`)
      t.equal(looks[1]!.underline, 'underline', `${where}: the others keep theirs`)
    }
    // No theme chosen: "System" is the current choice, marked by its border and a tint.
    const buttons = await page.evaluate(() =>
      ['system', 'light'].map((value) => {
        const style = getComputedStyle(document.querySelector(`.theme-choice button[value="${value}"]`)!)
        return { border: style.borderTopColor, shadow: style.boxShadow, background: style.backgroundColor }
      }),
    )
    t.not(buttons[0]!.border, buttons[1]!.border, 'the current theme has its own border colour')
    t.not(buttons[0]!.shadow, 'none', 'drawn twice as thick')
    t.not(buttons[0]!.background, buttons[1]!.background, 'and a tint')
  })
})

t.test('layout boundaries in the fixture application', async (t) => {
  const { origin } = await browserTestApp(t, 'fixture')

  t.test("a layout reads the open page's data as client navigation changes the page", async (t) => {
    const { page, documentRequests } = await openPage(t)
    await page.goto(`${origin}/shelf/one`)
    await waitForHydration(page)
    const open = page.locator('.shelf-open')
    t.equal(await open.textContent(), 'Open: Shelf item one', 'hydrated as rendered')
    await page.getByRole('link', { name: 'Shelf two' }).click()
    await page.locator('h1', { hasText: 'Shelf item two' }).waitFor()
    t.equal(await open.textContent(), 'Open: Shelf item two', 'with the page that came, not before it')
    await page.getByRole('link', { name: 'Shelf special' }).click()
    await page.locator('h1.special-error', { hasText: 'Special failure 503' }).waitFor()
    t.equal(await open.textContent(), 'No shelf item open', 'another route of the layout: nothing')
    await page.goBack()
    await page.locator('h1', { hasText: 'Shelf item two' }).waitFor()
    t.equal(await open.textContent(), 'Open: Shelf item two', 'back: the page from the cache, its data read again')
    t.same(documentRequests, [`${origin}/shelf/one`], 'all client navigations')
  })

  t.test("a dynamic layout's state and data survive navigation inside it", async (t) => {
    const { page, dataRequests } = await openPage(t)
    await page.goto(`${origin}/shelf/one`)
    await waitForHydration(page)
    const loads = await page.locator('.shelf-loads').textContent()
    await page.getByRole('textbox', { name: 'Shelf note' }).fill('remember me')
    await page.getByRole('link', { name: 'Shelf two' }).click()
    await page.locator('h1', { hasText: 'Shelf item two' }).waitFor()
    t.equal(await page.getByRole('textbox', { name: 'Shelf note' }).inputValue(), 'remember me')
    t.equal(await page.locator('.shelf-loads').textContent(), loads, "the layout's data was reused")
    t.same(
      dataRequests.filter((url) => url.includes('/shelf/two')),
      [`${origin}/_data/shelf/two`],
      'one data request',
    )
    // Out of the layout and back: it is mounted again, so its state is gone.
    await page.getByRole('link', { name: 'Off the shelf' }).click()
    await page.locator('h1', { hasText: 'Target' }).waitFor()
    t.equal(await page.locator('.shelf').count(), 0)
    await page.goBack()
    await page.locator('h1', { hasText: 'Shelf item two' }).waitFor()
    t.equal(await page.getByRole('textbox', { name: 'Shelf note' }).inputValue(), '')
  })

  t.test("a page's loader failure, reached by a link, shows inside the layout, which keeps working", async (t) => {
    const { page, failedResources } = await openPage(t)
    await page.goto(`${origin}/shelf/one`)
    await waitForHydration(page)
    await page.getByRole('link', { name: 'Shelf broken' }).click()
    await page.locator('h1', { hasText: 'The shelf could not show this.' }).waitFor()
    t.match(await page.locator('.shelf-error p').textContent(), /^Status 500, digest [0-9a-z]+$/)
    t.equal(await page.getByRole('textbox', { name: 'Shelf note' }).count(), 1, 'the shelf is still there')
    t.equal(await page.title(), 'Application error')
    await page.getByRole('link', { name: 'Shelf missing' }).click()
    await page.locator('h1', { hasText: 'Nothing on the shelf here.' }).waitFor()
    await page.getByRole('link', { name: 'Shelf special' }).click()
    await page.locator('h1.special-error', { hasText: 'Special failure 503' }).waitFor()
    await page.getByRole('link', { name: 'Shelf one' }).click()
    await page.locator('h1', { hasText: 'Shelf item one' }).waitFor()
    t.ok(failedResources.length >= 1, 'the failing page data showed its status in the console')
  })

  t.test('a render error in the browser is caught by the nearest boundary: the layout and the header keep working', async (t) => {
    const { page } = await openPage(t, {}, [/Shelf item rendering failed in the browser/])
    await page.goto(`${origin}/shelf/crash`)
    await waitForHydration(page)
    await page.getByRole('textbox', { name: 'Shelf note' }).fill('still here')
    await page.getByRole('button', { name: 'Break the shelf item' }).click()
    await page.getByText('It broke in the browser.').waitFor()
    t.equal(await page.getByRole('textbox', { name: 'Shelf note' }).inputValue(), 'still here', 'the layout kept its state')
    await page.getByRole('link', { name: 'Shelf one' }).click()
    await page.locator('h1', { hasText: 'Shelf item one' }).waitFor()
    t.equal(await page.getByText('It broke in the browser.').count(), 0, 'moving on renders the next page')
    await page.getByRole('link', { name: 'Fixture header link' }).click()
    await page.locator('h1', { hasText: 'Target' }).waitFor()
  })

  t.test("a layout's failure shows inside its parent", async (t) => {
    const { page } = await openPage(t)
    await page.context().addCookies([{ name: 'shelf', value: 'fail', url: origin }])
    const response = await page.goto(`${origin}/shelf/one`)
    t.equal(response?.status(), 500)
    await waitForHydration(page)
    await page.getByText('Application error: a server-side exception has occurred').waitFor()
    t.equal(await page.locator('.shelf').count(), 0)
    await page.getByRole('link', { name: 'Fixture header link' }).click()
    await page.locator('h1', { hasText: 'Target' }).waitFor()
  })
})

/** WCAG's contrast ratio of two computed `rgb()` colours. */
const CONTRAST = `(() => {
  const luminance = (css) => {
    const [r, g, b] = css.match(/[0-9.]+/g).slice(0, 3).map((v) => {
      const c = Number(v) / 255
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
    })
    return 0.2126 * r + 0.7152 * g + 0.0722 * b
  }
  const ratio = (a, b) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x)
    return (hi + 0.05) / (lo + 0.05)
  }
  const background = getComputedStyle(document.body).backgroundColor
  const probe = (className, tag = 'span') => {
    const element = document.createElement(tag)
    element.className = className
    element.textContent = 'x'
    if (tag === 'a') element.href = '/'
    document.body.append(element)
    const color = getComputedStyle(element).color
    element.remove()
    return color
  }
  return {
    background,
    text: ratio(getComputedStyle(document.body).color, background),
    link: ratio(probe('', 'a'), background),
    error: ratio(probe('field-error'), background),
    footer: ratio(getComputedStyle(document.querySelector('.site-footer p')).color, background),
  }
})()`

interface Contrast {
  readonly background: string
  readonly text: number
  readonly link: number
  readonly error: number
  readonly footer: number
}

t.test('the theme choice in Chromium', async (t) => {
  const { origin } = await browserTestApp(t)

  t.test('with JavaScript: applied at once, stored, and sent with the next document', async (t) => {
    const { page, documentRequests } = await openPage(t)
    const stored: Array<{ status: number }> = []
    page.on('response', (response) => {
      if (response.request().method() === 'POST') stored.push({ status: response.status() })
    })
    await page.goto(`${origin}/about`)
    await waitForHydration(page)
    const theme = page.getByRole('form', { name: 'Colour theme' })
    t.equal(await theme.getByRole('button', { name: 'System' }).getAttribute('aria-pressed'), 'true')
    await theme.getByRole('button', { name: 'Dark' }).click()
    await page.locator('html[data-theme="dark"]').waitFor({ state: 'attached' })
    t.equal(await theme.getByRole('button', { name: 'Dark' }).getAttribute('aria-pressed'), 'true')
    await waitUntil(() => stored.length === 1, 'the choice was posted')
    t.equal(stored[0]!.status, 200)
    await page.locator('form.theme-choice:not([aria-busy="true"])').waitFor()
    t.equal(await theme.getByRole('button', { name: 'Dark' }).getAttribute('aria-pressed'), 'true')
    t.equal(await page.locator('html').getAttribute('data-theme'), 'dark', 'stored: still dark once the answer came')
    const [cookie] = await page.context().cookies()
    t.match(cookie, { name: 'theme', value: 'dark', httpOnly: false, sameSite: 'Lax' })
    t.same(documentRequests, [`${origin}/about`], 'no page load')
    const reload = await page.reload()
    t.match(await reload!.text(), /^<!DOCTYPE html><html lang="en" data-theme="dark">/, 'the first byte has it')
    await waitForHydration(page)
    const dark = await page.evaluate<Contrast>(CONTRAST)
    t.equal(dark.background, 'rgb(22, 24, 29)', 'dark colours')
    for (const name of ['text', 'link', 'error', 'footer'] as const) t.ok(dark[name] >= 4.5, `dark: ${name} ${dark[name].toFixed(2)}:1 meets AA`)
  })

  t.test('a choice stored before its cookie was readable by scripts is kept, until the next choice', async (t) => {
    const { page } = await openPage(t)
    await page.context().addCookies([{ name: 'theme', value: 'dark', url: origin, httpOnly: true, sameSite: 'Lax' }])
    await page.goto(`${origin}/about`)
    await waitForHydration(page)
    const theme = page.getByRole('form', { name: 'Colour theme' })
    await theme.locator('button[aria-pressed="true"]').waitFor()
    t.equal(await theme.locator('button[aria-pressed="true"]').textContent(), 'Dark', 'the one the server wrote on the page')
    t.equal(await page.locator('html').getAttribute('data-theme'), 'dark', 'the colours stay')
    const answered = page.waitForResponse((response) => response.request().method() === 'POST')
    await theme.getByRole('button', { name: 'System' }).click()
    t.equal((await answered).status(), 200)
    await page.locator('form.theme-choice:not([aria-busy="true"])').waitFor()
    t.equal(await theme.locator('button[aria-pressed="true"]').textContent(), 'System', 'the choice shows once stored')
    t.equal(await page.locator('html').getAttribute('data-theme'), null, "the system's colours")
    t.match(await page.context().cookies(), [{ name: 'theme', value: 'system', httpOnly: false }], 'one cookie, readable now')
  })

  t.test('a choice that is not stored goes back, and says so', async (t) => {
    const { page } = await openPage(t, {}, [/status of 503/])
    await page.goto(`${origin}/about`)
    await waitForHydration(page)
    const theme = page.getByRole('form', { name: 'Colour theme' })
    await theme.getByRole('button', { name: 'Light' }).click()
    await page.locator('html[data-theme="light"]').waitFor({ state: 'attached' })
    t.equal(await theme.getByRole('button', { name: 'Light' }).getAttribute('aria-pressed'), 'true')

    // The server is down for a moment; its answer is held until the test has looked.
    let answer!: () => void
    const answered = new Promise<void>((resolve) => (answer = resolve))
    let posted = 0
    await page.route(`${origin}/about`, async (route) => {
      if (route.request().method() !== 'POST') return route.fallback()
      posted++
      await answered
      await route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: { message: 'Down for a moment.' } }) })
    })
    await theme.getByRole('button', { name: 'Dark' }).click()
    await page.locator('html[data-theme="dark"]').waitFor({ state: 'attached' })
    t.equal(await theme.getByRole('button', { name: 'Dark' }).getAttribute('aria-pressed'), 'true', 'dark while it is sent')
    await waitUntil(() => posted === 1, 'the choice was posted')
    answer()
    await theme.getByRole('alert').filter({ hasText: 'Down for a moment.' }).waitFor()
    await page.locator('html[data-theme="light"]').waitFor({ state: 'attached' })
    t.equal(await theme.getByRole('button', { name: 'Light' }).getAttribute('aria-pressed'), 'true', 'the stored choice again')
    t.match((await page.context().cookies())[0], { name: 'theme', value: 'light' })
  })

  t.test('a refused choice: the page says why under the buttons, until a choice of ours', async (t) => {
    const { page } = await openPage(t)
    await page.goto(`${origin}/about`)
    await waitForHydration(page)
    // A value the buttons never send, posted as a document (no script of ours involved).
    await postAsDocument(page, { _action: 'theme', theme: 'purple' })
    const theme = page.getByRole('form', { name: 'Colour theme' })
    const message = theme.getByRole('alert')
    await message.waitFor()
    await waitForHydration(page)
    t.equal(await message.textContent(), 'Choose light, dark or system.')
    const buttons = await theme.getByRole('button', { name: 'Light' }).boundingBox()
    const line = await message.boundingBox()
    t.ok(line!.y >= buttons!.y + buttons!.height, 'on a line of its own, under the buttons')
    await theme.getByRole('button', { name: 'Dark' }).click()
    await page.locator('html[data-theme="dark"]').waitFor({ state: 'attached' })
    await message.waitFor({ state: 'detached' })
    t.equal(await theme.getByRole('alert').count(), 0, 'a choice of ours takes the message away')
  })

  t.test('a refused choice belongs to its page: a link followed takes the message away', async (t) => {
    const { page } = await openPage(t)
    await page.goto(`${origin}/about`)
    await waitForHydration(page)
    await postAsDocument(page, { _action: 'theme', theme: 'purple' })
    const message = page.getByRole('form', { name: 'Colour theme' }).getByRole('alert')
    await message.waitFor()
    await waitForHydration(page)
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Home' }).click()
    await page.waitForURL(`${origin}/`)
    await page.getByRole('heading', { level: 1, name: 'Server-rendered React on Fastify' }).waitFor()
    t.equal(await message.count(), 0, 'the next page does not carry the refusal')
  })

  t.test('without JavaScript: the form posts, the page comes back in the chosen colours', async (t) => {
    const { page } = await openPage(t, { javaScriptEnabled: false, colorScheme: 'dark' })
    await page.goto(`${origin}/items/3`)
    const systemDark = await page.evaluate<Contrast>(CONTRAST)
    t.equal(systemDark.background, 'rgb(22, 24, 29)', "no choice: the system's (dark) colours")
    await page.getByRole('form', { name: 'Colour theme' }).getByRole('button', { name: 'Light' }).click()
    await page.locator('html[data-theme="light"]').waitFor({ state: 'attached' })
    t.equal(page.url(), `${origin}/items/3`, 'back on the same page')
    const light = await page.evaluate<Contrast>(CONTRAST)
    t.equal(light.background, 'rgb(255, 255, 255)', 'light, whatever the system says')
    for (const name of ['text', 'link', 'error', 'footer'] as const) t.ok(light[name] >= 4.5, `light: ${name} ${light[name].toFixed(2)}:1 meets AA`)
  })
})
