/**
 * Property: for every URL a browser could send to the production routes, the HTML and
 * the page data tell the same story. The HTML's `<main>` is never empty, and the page
 * data answers with the same kind and status (or the same redirect) as the HTML.
 */
import fc from 'fast-check'
import t from 'tap'
import { createTestApp } from '../helpers/app.js'
import { bootstrapOf } from '../helpers/page-html.js'
import { productionUrl } from '../helpers/generated-urls.js'

t.test('HTML and page data agree on every generated URL', async (t) => {
  const { app } = await createTestApp(t)
  let checked = 0
  await fc.assert(
    fc.asyncProperty(productionUrl, async (url) => {
      const html = await app.inject(url)
      const data = await app.inject(`/_data${url}`)
      const payload = data.json()
      if (html.statusCode === 308) {
        // Only an untidy path redirects, and its data says where to, the same place.
        if (payload.kind !== 'redirect' || payload.location !== html.headers.location) return false
        return true
      }
      const main = /<main id="main"[^>]*>([^]*?)<\/main>/.exec(html.body)?.[1] ?? ''
      if (main.replace(/<[^>]+>/g, '').trim() === '') throw new Error(`${url}: <main> is empty`)
      const inHtml = bootstrapOf(html.body)
      if (!inHtml) throw new Error(`${url}: no page data in the HTML`)
      if (data.statusCode !== html.statusCode) throw new Error(`${url}: HTML ${html.statusCode}, data ${data.statusCode}`)
      if (payload.kind !== inHtml.kind || payload.status !== inHtml.status) {
        throw new Error(`${url}: HTML ${inHtml.kind} ${inHtml.status}, data ${payload.kind} ${payload.status}`)
      }
      if (payload.kind === 'page' && JSON.stringify(payload.params) !== JSON.stringify(inHtml.params)) {
        throw new Error(`${url}: params differ`)
      }
      checked++
      return true
    }),
    { numRuns: 300 },
  )
  t.ok(checked > 200, `${checked} URLs rendered a page (the rest redirected)`)
})
