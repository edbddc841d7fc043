/**
 * The theme preference on the server: the root layout's action stores it in a cookie
 * (from any page, without JavaScript), and every document carries it on `<html>` from
 * the first byte, static pages served from memory included.
 */
import t from 'tap'
import { listenTestApp } from '../helpers/app.js'
import { rawRequest } from '../helpers/raw-http.js'

const FORM = { origin: 'http://localhost:80', 'content-type': 'application/x-www-form-urlencoded' }
import { setCookies } from '../helpers/cookies.js'

const htmlTag = (body: string) => /^<!DOCTYPE html>(<html[^>]*>)/.exec(body)?.[1]

t.test('the theme choice', async (t) => {
  const { app, origin, build } = await listenTestApp(t)
  /** A form post as the browser sends it, over a socket (app.inject would tidy the path). */
  const rawPost = (target: string, body: string) =>
    rawRequest(
      origin,
      `POST ${target} HTTP/1.1\r\nHost: ${new URL(origin).host}\r\nOrigin: ${origin}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    )

  t.test('the action stores a choice in a cookie and goes back to the page it was posted from', async (t) => {
    const dark = await app.inject({ method: 'POST', url: '/about', headers: FORM, payload: '_action=theme&theme=dark' })
    t.equal(dark.statusCode, 303)
    t.equal(dark.headers.location, '/about')
    const [cookie] = setCookies(dark)
    t.match(cookie, /^theme=dark; Max-Age=31536000; Path=\/; SameSite=Lax$/)

    const system = await app.inject({ method: 'POST', url: '/items/3', headers: FORM, payload: '_action=theme&theme=system' })
    t.equal(system.statusCode, 303)
    t.equal(system.headers.location, '/items/3')
    t.match(setCookies(system)[0], /^theme=system; Max-Age=31536000; Path=\/; SameSite=Lax$/, '"system" is a choice stored too')

    const notFound = await app.inject({ method: 'POST', url: '/no/such/page', headers: FORM, payload: '_action=theme&theme=light' })
    t.equal(notFound.statusCode, 303, 'the not-found page is in the root layout: its theme form works there too')

    const json = await app.inject({
      method: 'POST',
      url: '/contact',
      headers: { ...FORM, accept: 'application/json' },
      payload: '_action=theme&theme=light',
    })
    t.same(json.json(), { ok: true, redirect: '/contact', changed: {} }, 'no page data depends on it')

    const bad = await app.inject({
      method: 'POST',
      url: '/about',
      headers: { ...FORM, accept: 'application/json' },
      payload: '_action=theme&theme=purple',
    })
    t.equal(bad.statusCode, 422)
    t.same(bad.json(), { ok: false, action: 'theme', fieldErrors: { theme: 'Choose light, dark or system.' }, values: { theme: 'purple' } })
    t.same(setCookies(bad), [], 'nothing stored')

    const crafted = await app.inject({ method: 'POST', url: '/about', headers: FORM, payload: '_action=theme&theme=purple' })
    t.equal(crafted.statusCode, 422, 'without JavaScript: the page again')
    t.match(crafted.body, '<p class="form-error" role="alert">Choose light, dark or system.</p>', 'the theme form says why nothing changed')
    t.match(crafted.body, '<h1>About</h1>')

    const untidy = await rawPost('/about/', '_action=theme&theme=dark')
    t.equal(untidy.status, 404, 'a post to an untidy path runs nothing')
    t.equal(untidy.headers['set-cookie'], undefined)

    const crossSite = await app.inject({
      method: 'POST',
      url: '/about',
      headers: { ...FORM, origin: 'https://evil.example' },
      payload: '_action=theme&theme=dark',
    })
    t.equal(crossSite.statusCode, 403, 'another site cannot change it')
  })

  t.test('every document carries the theme on <html>, from the first byte', async (t) => {
    for (const path of ['/about', '/items/7', '/contact', '/', '/nope']) {
      t.equal(htmlTag((await app.inject(path)).body), '<html lang="en">', `${path}: no choice, the system's theme`)
      const dark = await app.inject({ url: path, headers: { cookie: 'theme=dark' } })
      t.equal(htmlTag(dark.body), '<html lang="en" data-theme="dark">', `${path}: dark`)
      t.equal(htmlTag((await app.inject({ url: path, headers: { cookie: 'theme=light' } })).body), '<html lang="en" data-theme="light">')
      t.equal(
        htmlTag((await app.inject({ url: path, headers: { cookie: 'theme="><script>' } })).body),
        '<html lang="en">',
        `${path}: anything else is ignored`,
      )
    }
  })

  t.test('a static page kept in memory: one ETag per theme, and Vary: Cookie', async (t) => {
    const plain = await app.inject('/about')
    const dark = await app.inject({ url: '/about', headers: { cookie: 'theme=dark' } })
    t.equal(plain.headers.vary, 'accept-encoding, cookie')
    t.equal(dark.headers.vary, 'accept-encoding, cookie')
    t.not(dark.headers.etag, plain.headers.etag, 'a cache never answers one theme with the other')
    const revalidated = await app.inject({ url: '/about', headers: { cookie: 'theme=dark', 'if-none-match': String(dark.headers.etag) } })
    t.equal(revalidated.statusCode, 304)
    const switched = await app.inject({ url: '/about', headers: { cookie: 'theme=light', 'if-none-match': String(dark.headers.etag) } })
    t.equal(switched.statusCode, 200, 'after a switch the document comes again')
    t.equal(htmlTag(switched.body), '<html lang="en" data-theme="light">')
    t.match(
      dark.body,
      `<script type="module" src="${build.manifest.routes.about!.file}"></script>`,
      "the page's script, from this origin (a static page needs no nonce)",
    )
  })
})
