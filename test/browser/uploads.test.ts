// test-needs: chromium
/**
 * The contact form's attachment in Chromium: without JavaScript (a plain multipart
 * form, full page loads) and with it (XMLHttpRequest, with the progress shown on the
 * button and in a <progress> element while a large file goes up).
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import type { Page } from 'playwright-core'
import { browserTestApp } from '../helpers/app.js'
import { fillContactForm, openPage, waitForHydration } from '../helpers/browser.js'
import { fileOf } from '../helpers/multipart.js'
import { MiB } from '../../shared/framework/uploads.js'

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

async function contactApp(t: Test) {
  const dir = mkdtempSync(path.join(tmpdir(), 'uploads-browser-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return { ...(await browserTestApp(t, 'production', { config: { uploadDir: dir } })), dir }
}

async function fillMessage(page: Page, name: string, file: { name: string; mimeType: string; buffer: Buffer }) {
  await fillContactForm(page, name, 'With a file')
  await page.getByLabel('Attachment').setInputFiles(file)
}

t.test('without JavaScript: a plain multipart form', async (t) => {
  const { origin, logs, dir } = await contactApp(t)

  t.test('a file is sent with the message and logged by its name, size and SHA-256', async (t) => {
    const { page } = await openPage(t, { javaScriptEnabled: false })
    await page.goto(`${origin}/contact`)
    t.equal(await page.locator('form.contact-form').getAttribute('enctype'), 'multipart/form-data')
    const png = fileOf('png', 200 * 1024)
    await fillMessage(page, 'Plain Form', { name: 'chart.png', mimeType: 'image/png', buffer: png })
    await page.getByRole('button', { name: 'Send' }).click()
    await page.locator('h1', { hasText: 'Thank you' }).waitFor()
    const line = logs.find((l) => l.event === 'contact.message' && (l.contact as any).name === 'Plain Form')
    t.same((line?.contact as any)?.attachment, { name: 'chart.png', size: png.length, sha256: sha256(png) })
    t.same(readdirSync(dir), [], 'the file is gone')
  })

  t.test('a file of the wrong type comes back as an error by the attachment, the text kept', async (t) => {
    const { page } = await openPage(t, { javaScriptEnabled: false })
    await page.goto(`${origin}/contact`)
    await fillMessage(page, 'Wrong Type', { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not an image') })
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Send' }).click(),
    ])
    t.equal(answer.status(), 422)
    await page.getByText('Please choose a PNG, JPEG or PDF file.').waitFor()
    t.equal(await page.getByLabel('Attachment').getAttribute('aria-invalid'), 'true')
    t.equal(await page.getByLabel('Name').inputValue(), 'Wrong Type', 'what was typed stays')
    t.notOk(
      logs.some((l) => l.event === 'contact.message' && (l.contact as any).name === 'Wrong Type'),
      'nothing sent',
    )
  })
})

t.test('with JavaScript: sent by XMLHttpRequest, progress shown', async (t) => {
  const { origin, logs, dir } = await contactApp(t)

  t.test('a large file: the button and a progress bar count up while it goes, then the page thanks', async (t) => {
    const { page, documentRequests, errors } = await openPage(t)
    await page.goto(`${origin}/contact`)
    await waitForHydration(page)
    // Over loopback 4 MiB go up in an instant: Chromium's own throttling makes the upload last long enough to watch.
    const cdp = await page.context().newCDPSession(page)
    await cdp.send('Network.enable')
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 2 * MiB })
    const pdf = fileOf('pdf', 4 * MiB)
    await fillMessage(page, 'Big Upload', { name: 'scan.pdf', mimeType: 'application/pdf', buffer: pdf })
    const button = page.locator('.contact-form button[type="submit"]')
    await button.click()
    // Two different percentages seen on the button, each read while it was showing.
    const first = await page.waitForFunction(
      () => /^Sending… (\d+)%$/.exec(document.querySelector('.contact-form button[type="submit"]')!.textContent!)?.[1],
    )
    const firstShare = Number(await first.jsonValue())
    const later = await page.waitForFunction((seen) => {
      const share = /^Sending… (\d+)%$/.exec(document.querySelector('.contact-form button[type="submit"]')!.textContent!)?.[1]
      return share !== undefined && Number(share) > seen && share
    }, firstShare)
    t.ok(Number(await later.jsonValue()) > firstShare, `the percentage went up (${firstShare}% then ${await later.jsonValue()}%)`)
    const bar = page.getByRole('progressbar', { name: 'Sent so far' })
    t.ok(Number(await bar.getAttribute('value')) > 0, 'a <progress> element says it too')
    await page.locator('h1', { hasText: 'Thank you' }).waitFor()
    t.equal(await button.textContent(), 'Send')
    t.equal(await bar.count(), 0, 'the bar is gone once sent')
    const line = logs.find((l) => l.event === 'contact.message' && (l.contact as any).name === 'Big Upload')
    t.same((line?.contact as any)?.attachment, { name: 'scan.pdf', size: pdf.length, sha256: sha256(pdf) })
    t.same(documentRequests, [`${origin}/contact`], 'no document load: the form went by XMLHttpRequest')
    t.same(readdirSync(dir), [])
    t.same(errors, [])
  })

  t.test('a file of the wrong type: the refusal names the types it takes', async (t) => {
    const { page } = await openPage(t)
    await page.goto(`${origin}/contact`)
    await waitForHydration(page)
    await fillMessage(page, 'Script Type', { name: 'photo.png', mimeType: 'image/png', buffer: Buffer.from('<script>alert(1)</script>') })
    await page.getByRole('button', { name: 'Send' }).click()
    await page.getByText('must be a PNG, JPEG or PDF file').waitFor()
    t.equal(page.url(), `${origin}/contact`)
  })
})
