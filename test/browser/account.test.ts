// test-needs: chromium
/**
 * Signing in and out in Chromium: the guard sends a signed-out visitor to /login and
 * back; the two account pages are navigated without document loads; the header shows
 * "Sign in" or "Account"; sign-out ends it. With and without JavaScript.
 */
import t from 'tap'
import { browserTestApp } from '../helpers/app.js'
import { openPage, waitForHydration } from '../helpers/browser.js'

t.test('sign in, move between the account pages, sign out', async (t) => {
  const { origin } = await browserTestApp(t)

  t.test('with JavaScript', async (t) => {
    const { page, errors, documentRequests } = await openPage(t)
    await page.goto(`${origin}/about`)
    await waitForHydration(page)
    const header = page.getByRole('banner')
    t.ok(await header.getByRole('link', { name: 'Sign in' }).isVisible(), 'signed out: "Sign in"')
    t.notOk(await header.getByRole('link', { name: 'Account' }).isVisible())

    await page.goto(`${origin}/account/activity`)
    await page.getByRole('heading', { name: 'Sign in' }).waitFor()
    t.equal(page.url(), `${origin}/login?next=%2Faccount%2Factivity`, 'sent to sign in, with the way back')
    await waitForHydration(page)
    const documentsBefore = documentRequests.length

    await page.getByLabel('Email').fill('demo@example.com')
    await page.getByLabel('Password').fill('wrong-password')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByText('That email and password do not match an account.').waitFor()
    t.equal(await page.getByLabel('Email').inputValue(), 'demo@example.com')

    await page.getByLabel('Password').fill('demo-password')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Activity' }).waitFor()
    t.equal(page.url(), `${origin}/account/activity`, 'back where the guard sent the visitor from')
    t.match(await page.locator('.account-email').textContent(), 'demo@example.com')
    await header.getByRole('link', { name: 'Account' }).waitFor()
    t.notOk(await header.getByRole('link', { name: 'Sign in' }).isVisible(), 'the header now says "Account"')

    await page.getByRole('complementary', { name: 'Account' }).getByRole('link', { name: 'Overview' }).click()
    await page.getByRole('heading', { name: 'Your account' }).waitFor()
    await page.getByRole('complementary', { name: 'Account' }).getByRole('link', { name: 'Activity' }).click()
    await page.getByRole('heading', { name: 'Activity' }).waitFor()
    t.equal(documentRequests.length, documentsBefore, 'sign-in and both account pages without a document load')

    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(`${origin}/`)
    await header.getByRole('link', { name: 'Sign in' }).waitFor()
    t.equal(documentRequests.length, documentsBefore, 'nor sign-out')

    // A stale hint (another tab signed out): the Account link is followed client-side,
    // and the guard's redirect is followed as a loader's would be, without a page load.
    await page.evaluate(() => document.documentElement.setAttribute('data-signed-in', ''))
    await header.getByRole('link', { name: 'Account' }).click()
    await page.getByRole('heading', { name: 'Sign in' }).waitFor()
    t.equal(page.url(), `${origin}/login?next=%2Faccount`, 'signed out: the account is guarded again')
    t.equal(documentRequests.length, documentsBefore, 'the redirect was followed in the page')
    t.same(errors, [])
  })

  t.test('without JavaScript: the same forms with page loads', async (t) => {
    const { page } = await openPage(t, { javaScriptEnabled: false })
    await page.goto(`${origin}/account`)
    t.equal(page.url(), `${origin}/login?next=%2Faccount`)
    await page.getByLabel('Email').fill('demo@example.com')
    await page.getByLabel('Password').fill('not-it')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByText('That email and password do not match an account.').waitFor()
    t.equal(await page.getByLabel('Password').inputValue(), '', 'the password does not come back')
    await page.getByLabel('Password').fill('demo-password')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Your account' }).waitFor()
    t.ok(await page.getByRole('banner').getByRole('link', { name: 'Account' }).isVisible(), 'the server wrote the hint on <html>')
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(`${origin}/`)
    t.ok(await page.getByRole('banner').getByRole('link', { name: 'Sign in' }).isVisible())
  })
})
