// test-needs: chromium
/**
 * Two tabs of one browser, two accounts: a tab that still shows one account after
 * another tab signed out and in as another never shows or acts for the first one again.
 * Its next navigation loads every layout again (the sidebar's email included), and a
 * form it shows, posted, is refused with nothing done and the page loaded again.
 */
import t from 'tap'
import type { Page } from 'playwright-core'
import { parseAccounts } from '../../server/config.js'
import { CACHED_LAYOUTS_HEADER } from '../../shared/framework/constants.js'
import { browserTestApp } from '../helpers/app.js'
import { openPage, waitForHydration } from '../helpers/browser.js'

const PASSWORD = 'hunter2-but-longer'
const A = 'ada@example.com'
const B = 'bob@example.com'

async function signIn(page: Page, origin: string, email: string): Promise<void> {
  await page.goto(`${origin}/login?next=%2Faccount`)
  await waitForHydration(page)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Your account' }).waitFor()
  await page.locator('.account-email', { hasText: email }).waitFor()
}

async function signOut(page: Page, origin: string): Promise<void> {
  await page.goto(`${origin}/account`)
  await waitForHydration(page)
  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.waitForURL(`${origin}/`)
}

t.test('a stale tab loads the other account whole, and its forms are refused', async (t) => {
  const accounts = parseAccounts(`${A}:${PASSWORD},${B}:${PASSWORD}`, 'DEMO_ACCOUNT')
  const { origin } = await browserTestApp(t, 'production', { config: { product: { DEMO_ACCOUNT: accounts } } })
  const { page: tab1, documentRequests, errors } = await openPage(t, {}, [/409 \(Conflict\)/])
  const tab2 = await tab1.context().newPage()
  const sidebar = tab1.getByRole('complementary', { name: 'Account' })
  const heldLayouts: Array<string | undefined> = []
  tab1.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith('/_data/')) heldLayouts.push(request.headers()[CACHED_LAYOUTS_HEADER])
  })

  // Tab 1 signed in as A, on the account pages.
  await signIn(tab1, origin, A)
  await sidebar.getByRole('link', { name: 'Activity' }).click()
  await tab1.getByRole('heading', { name: 'Activity' }).waitFor()
  await sidebar.getByRole('link', { name: 'Overview' }).click()
  await tab1.getByRole('heading', { name: 'Your account' }).waitFor()
  t.match(heldLayouts.at(-1) ?? '', /account/, 'moving within the account pages reuses the held sidebar')
  const documents = documentRequests.length

  // Tab 2: signs out, signs in as B.
  await signOut(tab2, origin)
  await signIn(tab2, origin, B)

  // Tab 1 still shows A's sidebar; its next navigation brings B's, whole.
  t.equal(await tab1.locator('.account-email').textContent(), A, 'nothing changed in tab 1 by itself')
  const requestsBefore = heldLayouts.length
  await sidebar.getByRole('link', { name: 'Activity' }).click()
  await tab1.getByRole('heading', { name: 'Activity' }).waitFor()
  t.equal(await tab1.locator('.account-email').textContent(), B, "the sidebar is B's")
  t.equal(documentRequests.length, documents, 'a navigation in the page, not a document load')
  t.same(heldLayouts.slice(requestsBefore), [undefined], 'asked for every layout: none of A held')
  // Back to the page tab 1 had cached for A: asked again, as B.
  await sidebar.getByRole('link', { name: 'Overview' }).click()
  await tab1.getByRole('heading', { name: 'Your account' }).waitFor()
  t.equal(await tab1.locator('.account-email').textContent(), B)
  t.notMatch(await tab1.locator('main').textContent(), A, "no trace of A's on screen")

  // Tab 2 switches back to A; tab 1, showing B, signs out from its stale form.
  await signOut(tab2, origin)
  await signIn(tab2, origin, A)
  await tab1.getByRole('button', { name: 'Sign out' }).click()
  await tab1.getByText('You signed in or out in another tab since this form was shown, so it was not sent.').waitFor()
  await tab1.locator('.account-email', { hasText: A }).waitFor()
  t.equal(tab1.url(), `${origin}/account`, 'still on the page, now showing who is signed in')
  t.equal(documentRequests.length, documents, 'still without a document load')
  await tab2.reload()
  t.equal(await tab2.locator('.account-email').textContent(), A, 'A was not signed out')

  // Back to a page tab 1 holds from before another sign-in: loaded again, not shown from the cache.
  await sidebar.getByRole('link', { name: 'Activity' }).click()
  await tab1.getByRole('heading', { name: 'Activity' }).waitFor()
  await sidebar.getByRole('link', { name: 'Overview' }).click()
  await tab1.getByRole('heading', { name: 'Your account' }).waitFor()
  await signOut(tab2, origin)
  await signIn(tab2, origin, B)
  await tab1.goBack()
  await tab1.getByRole('heading', { name: 'Activity' }).waitFor()
  t.equal(await tab1.locator('.account-email').textContent(), B, "Back shows B's page, never A's cached one")
  t.equal(documentRequests.length, documents, 'Back stayed in the page')
  t.same(
    errors.filter((error) => !/409/.test(error)),
    [],
  )
})

t.test('without JavaScript: the stale form gets the 409 page, and nothing is done', async (t) => {
  const accounts = parseAccounts(`${A}:${PASSWORD},${B}:${PASSWORD}`, 'DEMO_ACCOUNT')
  const { origin } = await browserTestApp(t, 'production', { config: { product: { DEMO_ACCOUNT: accounts } } })
  const { page: tab1 } = await openPage(t, { javaScriptEnabled: false })
  const tab2 = await tab1.context().newPage()
  for (const [page, email] of [[tab1, A] as const]) {
    await page.goto(`${origin}/login?next=%2Faccount`)
    await page.getByLabel('Email').fill(email)
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Your account' }).waitFor()
  }
  await tab2.goto(`${origin}/account`)
  await tab2.getByRole('button', { name: 'Sign out' }).click()
  await tab2.waitForURL(`${origin}/`)
  await tab2.goto(`${origin}/login?next=%2Faccount`)
  await tab2.getByLabel('Email').fill(B)
  await tab2.getByLabel('Password').fill(PASSWORD)
  await tab2.getByRole('button', { name: 'Sign in' }).click()
  await tab2.getByRole('heading', { name: 'Your account' }).waitFor()

  const answer = tab1.waitForResponse((response) => response.request().method() === 'POST')
  await tab1.getByRole('button', { name: 'Sign out' }).click()
  t.equal((await answer).status(), 409)
  await tab1.getByText('You signed in or out in another tab since this form was shown, so it was not sent.').waitFor()
  await tab2.reload()
  t.equal(await tab2.locator('.account-email').textContent(), B, 'B was not signed out')
})
