// test-needs: chromium
/**
 * The contact form's schema in Chromium: its inputs carry the rules the route table
 * declares (`required`, `maxlength`, `type`), and a value the server's schema refuses
 * shows that schema's message in place, without a document load.
 */
import t from 'tap'
import { browserTestApp } from '../helpers/app.js'
import { openPage, waitForHydration } from '../helpers/browser.js'

t.test("the contact form's schema, with JavaScript", async (t) => {
  const { origin, logs } = await browserTestApp(t)
  const { page, errors, documentRequests } = await openPage(t)
  await page.goto(`${origin}/contact`)
  await waitForHydration(page)

  const attributesOf = (label: string) =>
    page.getByLabel(label).evaluate((input) => Object.fromEntries(['type', 'required', 'maxlength'].map((name) => [name, input.getAttribute(name)])))
  t.same(await attributesOf('Name'), { type: null, required: '', maxlength: '80' })
  t.same(await attributesOf('Email'), { type: 'email', required: '', maxlength: '254' })
  t.same(await attributesOf('Message'), { type: null, required: '', maxlength: '2000' })

  // The browser's own check takes an address without a dot in its domain; the schema does not.
  await page.getByLabel('Name').fill('Ada')
  await page.getByLabel('Email').fill('ada@example')
  await page.getByLabel('Message').fill('Hello')
  await page.getByRole('button', { name: 'Send' }).click()
  await page.getByText('Please enter a valid email address.').waitFor()
  t.equal(await page.getByLabel('Email').getAttribute('aria-invalid'), 'true')
  t.equal(await page.getByLabel('Name').inputValue(), 'Ada', 'the other values stay')
  t.equal(await page.getByLabel('Message').inputValue(), 'Hello')
  t.same(documentRequests, [`${origin}/contact`], 'refused in place: no document load')
  t.notOk(
    logs.some((line) => line.event === 'contact.message'),
    'the action never ran',
  )
  t.same(errors, [])
})
