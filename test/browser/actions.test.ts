// test-needs: chromium
/**
 * Forms and server actions in Chromium: with JavaScript (sent by fetch, errors in
 * place, client-side navigation after success, data refreshed) and without (the same
 * form with full page loads).
 */
import type { Page } from 'playwright-core'
import t from 'tap'
import { browserTestApp } from '../helpers/app.js'
import { fillContactForm, openPage, postAsDocument, settleAfter, waitForHydration } from '../helpers/browser.js'
import { waitUntil } from '../helpers/wait.js'

/** Sends the contact form with a valid message from `name`. */
async function sendMessage(page: Page, name: string, message: string): Promise<void> {
  await fillContactForm(page, name, message)
  await page.getByRole('button', { name: 'Send' }).click()
}

t.test('the contact form', async (t) => {
  const { origin, logs } = await browserTestApp(t)

  t.test('with JavaScript: errors show in place, success navigates client-side', async (t) => {
    const { page, errors, documentRequests } = await openPage(t)
    await page.goto(`${origin}/contact`)
    await waitForHydration(page)
    await page.getByLabel('Email').fill('not-an-email')
    await page.getByRole('button', { name: 'Send' }).click()
    await page.getByText('Please enter your name.').waitFor()
    t.ok(await page.getByText('Please enter a valid email address.').isVisible())
    t.ok(await page.getByText('Please enter a message.').isVisible())
    t.equal(await page.getByLabel('Email').inputValue(), 'not-an-email', 'what was typed stays')
    t.equal(await page.getByLabel('Name').getAttribute('aria-invalid'), 'true')
    t.equal(await page.evaluate(() => document.activeElement?.getAttribute('name')), 'name', 'focus went to the first field to fix')
    t.equal(await page.getByRole('alert').textContent(), '3 fields need fixing.', 'the refusal is announced')
    t.equal(
      await page.evaluate(() => document.getElementById(document.activeElement!.getAttribute('aria-describedby')!)?.textContent),
      'Please enter your name.',
      'and the focused field carries its error',
    )
    t.equal(
      await page.getByRole('button', { name: 'Send' }).getAttribute('disabled'),
      null,
      'the button is never disabled (focus would fall to the page)',
    )
    for (const label of ['Name', 'Email', 'Message']) t.equal(await page.getByLabel(label).getAttribute('required'), '', `${label} is required`)
    t.equal(page.url(), `${origin}/contact`)

    await sendMessage(page, 'Grace Hopper', 'Hello from the browser')
    await page.locator('h1', { hasText: 'Thank you' }).waitFor()
    t.equal(await page.getByRole('status').textContent(), 'Thank you, Grace Hopper. Your message has been sent; we will get back to you soon.')
    t.equal(page.url(), `${origin}/contact`)
    t.equal(await page.getByLabel('Name').inputValue(), '', 'the form is empty again, for another message')
    t.same(documentRequests, [`${origin}/contact`], 'no document load: the form and the reload of its data ran in the page')
    t.ok(logs.some((l) => l.event === 'contact.message' && (l.contact as any).name === 'Grace Hopper'))
    t.same(errors, [])
  })

  t.test('the thanks shows once: Contact again by a link, or by Back, asks the server and shows the form', async (t) => {
    const main = (page: Page) => page.getByRole('navigation', { name: 'Main' })
    const ways: Array<[string, (page: Page) => Promise<unknown>]> = [
      ['a link', (page) => main(page).getByRole('link', { name: 'Contact' }).click()],
      ['Back', (page) => page.goBack()],
    ]
    for (const [way, goBackToContact] of ways) {
      const { page, dataRequests } = await openPage(t)
      await page.goto(`${origin}/contact`)
      await waitForHydration(page)
      await sendMessage(page, 'Ada', `Once, then ${way}`)
      await page.locator('h1', { hasText: 'Thank you' }).waitFor()
      await main(page).getByRole('link', { name: 'About' }).click()
      await page.locator('h1', { hasText: 'About' }).waitFor()
      const asked = dataRequests.filter((url) => url === `${origin}/_data/contact`).length
      await goBackToContact(page)
      await page.locator('h1', { hasText: 'Contact' }).waitFor()
      t.equal(page.url(), `${origin}/contact`, way)
      t.equal(await page.getByText('Thank you').count(), 0, `${way}: not thanked again`)
      t.equal(dataRequests.filter((url) => url === `${origin}/_data/contact`).length, asked + 1, `${way}: the page was asked for again`)
    }
  })

  t.test('a link followed while the message is being sent: the answer does not take the user back', async (t) => {
    const tracked = await openPage(t)
    const { page } = tracked
    let release: (() => Promise<void>) | undefined
    await page.route(`${origin}/contact`, (route) => {
      if (route.request().method() !== 'POST') return route.continue()
      release = () => route.continue()
    })
    await page.goto(`${origin}/contact`)
    await waitForHydration(page)
    await sendMessage(page, 'Grace', 'Sent while leaving')
    await waitUntil(() => release !== undefined, 'the post is held')
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'About' }).click()
    await page.locator('h1', { hasText: 'About' }).waitFor()
    const asked = tracked.dataRequests.length
    await release!()
    await settleAfter(tracked, `${origin}/contact`) // the answer is in, and was handled
    t.same(tracked.dataRequests.slice(asked), [], 'nothing loaded for its redirect')
    t.equal(page.url(), `${origin}/about`, 'still on About')
    t.equal(await page.locator('h1').textContent(), 'About')
    t.ok(
      logs.some((l) => l.event === 'contact.message' && (l.contact as any).name === 'Grace'),
      'the message was sent all the same',
    )
  })

  t.test('without JavaScript: the same form works with full page loads', async (t) => {
    const { page, documentRequests } = await openPage(t, { javaScriptEnabled: false })
    await page.goto(`${origin}/contact`)
    await page.getByLabel('Email').fill('nope')
    await page.getByLabel('Message').fill('Kept <b>as typed</b>')
    await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: 'Send' }).click()])
    await page.getByText('Please enter your name.').waitFor()
    t.ok(await page.getByText('Please enter a valid email address.').isVisible())
    t.equal(await page.getByLabel('Email').inputValue(), 'nope', 'the 422 page keeps the values')
    t.equal(await page.getByLabel('Message').inputValue(), 'Kept <b>as typed</b>')

    await page.getByLabel('Name').fill('Ada Lovelace')
    await page.getByLabel('Email').fill('ada@example.com')
    await page.getByRole('button', { name: 'Send' }).click()
    await page.locator('h1', { hasText: 'Thank you' }).waitFor()
    t.equal(page.url(), `${origin}/contact`)
    t.same(
      documentRequests,
      [`${origin}/contact`, `${origin}/contact`, `${origin}/contact`, `${origin}/contact`],
      'page, post (422), post (303), the page again, thanking',
    )
    await page.reload()
    await page.locator('h1', { hasText: 'Contact' }).waitFor()
    t.equal(await page.getByText('Thank you').count(), 0, 'thanked once: a reload shows the form alone')
    t.ok(logs.some((l) => l.event === 'contact.message' && (l.contact as any).name === 'Ada Lovelace'))
  })
})

t.test("a form post's refusal as the document: a link to that page then loads the page, not the refusal again", async (t) => {
  const { origin } = await browserTestApp(t)
  const { page, dataRequests } = await openPage(t)
  await page.goto(`${origin}/contact`)
  await waitForHydration(page)
  // Sent as a document (a form posted before the page hydrated, say): 2 MiB, past the 1 MiB limit.
  const refusal = await postAsDocument(page, { _action: 'send', message: 'x'.repeat(2 * 1024 * 1024) })
  t.equal(refusal.status(), 413)
  await page.locator('h1', { hasText: '413' }).waitFor()
  await waitForHydration(page)
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Contact' }).click()
  await page.locator('h1', { hasText: 'Contact' }).waitFor()
  t.ok(dataRequests.includes(`${origin}/_data/contact`), 'the page was asked for, the refusal not shown again from memory')
  t.ok(await page.getByLabel('Message').isVisible(), 'the form is back')
})

t.test('actions that change page data (fixture guestbook)', async (t) => {
  const { origin } = await browserTestApp(t, 'fixture')

  async function open(t: Parameters<typeof openPage>[0]) {
    const tracked = await openPage(t)
    await tracked.page.goto(`${origin}/guestbook`)
    await waitForHydration(tracked.page)
    return tracked
  }

  t.test('after a successful action the page data is fetched again', async (t) => {
    const { page, documentRequests, dataRequests, errors } = await open(t)
    await page.getByLabel('Your name').fill('Zed Shaw')
    await page.getByRole('button', { name: 'Sign' }).click()
    await page.locator('.names li', { hasText: 'Zed Shaw' }).waitFor()
    t.same(documentRequests, [`${origin}/guestbook`])
    t.ok(dataRequests.includes(`${origin}/_data/guestbook`), 'the data came again')
    t.equal(await page.getByLabel('Your name').inputValue(), '', 'the form was reset')
    t.same(errors, [])
  })

  t.test('the submit button is disabled while sending, and a double click sends once', async (t) => {
    const { page } = await open(t)
    const posts: Array<() => Promise<void>> = []
    await page.route(`${origin}/guestbook`, (route) => {
      if (route.request().method() !== 'POST') return route.fallback()
      posts.push(() => route.continue())
    })
    await page.getByLabel('Your name').fill('Double Click')
    await page.getByRole('button', { name: 'Sign' }).dblclick()
    await waitUntil(() => posts.length === 1, 'the post is held')
    t.ok(await page.getByRole('button', { name: 'Sign' }).isDisabled(), 'pending: the button is disabled')
    await posts[0]!()
    await page.locator('.names li', { hasText: 'Double Click' }).waitFor()
    t.ok(await page.getByRole('button', { name: 'Sign' }).isEnabled())
    t.equal(posts.length, 1, 'one post for two clicks')
    t.equal(await page.locator('.names li', { hasText: 'Double Click' }).count(), 1, 'signed once')
  })

  t.test('an action that fails shows a form error without leaking its message', async (t) => {
    const { page, errors } = await open(t)
    await page.getByRole('button', { name: 'Explode' }).click()
    await page.getByRole('alert').waitFor()
    t.equal(await page.getByRole('alert').textContent(), 'Internal server error')
    t.same(errors, [], 'the 500 shows up only as a resource status')
  })

  t.test('a form that asks first: cancelled, nothing is sent; confirmed, it is sent as any other', async (t) => {
    const { page, documentRequests } = await open(t)
    const posts: string[] = []
    page.on('request', (request) => {
      if (request.method() === 'POST') posts.push(request.postData() ?? '')
    })
    const questions: string[] = []
    let answer = false
    page.on('dialog', (dialog) => {
      questions.push(dialog.message())
      void (answer ? dialog.accept() : dialog.dismiss())
    })
    await page.getByLabel('Careful name').fill('Ann Onymous')
    await page.getByRole('button', { name: 'Add carefully' }).click()
    await waitUntil(() => questions.length === 1, 'the question is asked')
    t.same(questions, ['Sign as Ann Onymous?'], 'with the values the form would send')
    // Cancelled: the form is as it was, and a question answered yes next sends it.
    t.equal(await page.getByLabel('Careful name').inputValue(), 'Ann Onymous', 'the form keeps what was typed')
    answer = true
    await page.getByRole('button', { name: 'Add carefully' }).click()
    await page.locator('.names li', { hasText: 'Ann Onymous' }).waitFor()
    t.equal(questions.length, 2)
    t.same(posts, ['_action=sign&_identity=&name=Ann+Onymous'], 'one post: the cancelled submission sent nothing')
    t.same(documentRequests, [`${origin}/guestbook`], 'by script, no page load')
  })

  t.test("an action's redirect is a client-side navigation", async (t) => {
    const { page, documentRequests } = await open(t)
    await page.getByRole('button', { name: 'Go elsewhere' }).click()
    await page.locator('h1', { hasText: 'Target' }).waitFor()
    t.equal(page.url(), `${origin}/target`)
    t.same(documentRequests, [`${origin}/guestbook`])
  })

  t.test('an invalid value shows its error next to the field', async (t) => {
    const { page } = await open(t)
    await page.getByLabel('Your name').fill('R2-D2')
    await page.getByRole('button', { name: 'Sign' }).click()
    await page.getByText('Letters and spaces only, 1 to 20.').waitFor()
    t.equal(
      await page.getByLabel('Your name').getAttribute('aria-describedby'),
      await page.getByText('Letters and spaces only, 1 to 20.').getAttribute('id'),
    )
  })
})
