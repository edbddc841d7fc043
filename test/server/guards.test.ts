/**
 * Guards, tried as an attacker would: every way a page beneath a guard is reached, with
 * the guard refusing, runs the guard once and nothing beneath it (the fixture counts
 * every loader and action run: test/fixtures/app/vault.ts), and shows none of its data.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { createTestApp } from '../helpers/app.js'
import { BOUNDARY, fileOf, multipartBody } from '../helpers/multipart.js'
import { bootstrapOf } from '../helpers/page-html.js'
import { SECRET_MESSAGE } from '../fixtures/app/routes.js'
import { resetVaultRuns, vaultGuard, vaultRuns } from '../fixtures/app/vault.js'
import { guardValue } from '../../server/framework/guards.js'
import { sessionOf } from '../../server/framework/response-control.js'

const ORIGIN = 'http://localhost:80' // what app.inject's requests are addressed to
const FORM = 'application/x-www-form-urlencoded'
/** Where the vault's guard sends a signed-out visitor of /vault/7. */
const TO_SIGN_IN = '/target?next=%2Fvault%2F7'

type Inject = InjectOptions

/** Every way a browser, a script or an attacker reaches /vault/7 (and what each asks for). */
function waysIn(cookie: string): Array<{ readonly name: string; readonly request: Inject }> {
  const headers = cookie ? { cookie } : {}
  const post = (body: string, extra: Record<string, string> = {}) => ({
    method: 'POST' as const,
    url: '/vault/7',
    payload: body,
    headers: { ...headers, 'content-type': FORM, origin: ORIGIN, ...extra },
  })
  const upload = multipartBody([
    { name: '_action', value: 'store' },
    { name: 'note', value: 'hi' },
    { name: 'picture', filename: 'p.png', type: 'image/png', content: fileOf('png', 64 * 1024) },
  ])
  return [
    { name: 'the document', request: { url: '/vault/7', headers } },
    { name: 'HEAD of the document', request: { method: 'HEAD', url: '/vault/7', headers } },
    { name: 'a conditional GET', request: { url: '/vault/7', headers: { ...headers, 'if-none-match': '*' } } },
    { name: 'the page data', request: { url: '/_data/vault/7', headers } },
    { name: 'the page data, holding every layout', request: { url: '/_data/vault/7', headers: { ...headers, 'x-layouts-held': 'root,vault' } } },
    { name: 'HEAD of the page data', request: { method: 'HEAD', url: '/_data/vault/7', headers: { ...headers, 'x-layouts-held': 'vault' } } },
    { name: 'a form post', request: post('_action=store&note=hi') },
    { name: 'a form post by script', request: post('_action=store&note=hi', { accept: 'application/json' }) },
    { name: "a post of the layout's action", request: post('_action=lock') },
    {
      name: 'a form with a file',
      request: {
        method: 'POST',
        url: '/vault/7',
        payload: upload,
        headers: { ...headers, origin: ORIGIN, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      },
    },
  ]
}

/** A folder of its own for the test's uploads, removed with it. */
function uploadDir(t: Test): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'guards-test-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

const nothingBeneathRan = () => vaultRuns.layoutLoader + vaultRuns.pageLoader + vaultRuns.actions === 0

t.test('signed out: every way into a guarded layout is sent to sign in, and nothing beneath the guard runs', async (t) => {
  const dir = uploadDir(t)
  const { app } = await createTestApp(t, 'fixture', { config: { uploadDir: dir } })
  for (const { name, request } of waysIn('')) {
    resetVaultRuns()
    const res = await app.inject(request)
    const isData = String((request as { url: string }).url).startsWith('/_data')
    const byScript = (request as { headers?: Record<string, string> }).headers?.accept === 'application/json'
    if (isData) {
      t.equal(res.statusCode, 200, `${name}: the redirect travels as data`)
      if ((request as { method?: string }).method !== 'HEAD')
        t.same(res.json(), { kind: 'redirect', status: 303, location: TO_SIGN_IN, buildId: res.json().buildId })
    } else if (byScript) {
      t.same(res.json(), { ok: true, redirect: TO_SIGN_IN }, `${name}: the script is told where to go`)
    } else {
      t.equal(res.statusCode, 303, `${name}: 303`)
      t.equal(res.headers.location, TO_SIGN_IN, `${name}: to sign in, and back here after`)
    }
    t.equal(res.headers['cache-control'], 'private, no-store', `${name}: never kept by a cache`)
    t.notMatch(res.body, /keeper/, `${name}: nothing the guard protects`)
    t.equal(vaultRuns.guard, 1, `${name}: the guard ran once`)
    t.ok(nothingBeneathRan(), `${name}: no loader or action beneath the guard ran (${JSON.stringify(vaultRuns)})`)
  }
  t.same(readdirSync(dir), [], 'no byte of the file was stored')
})

t.test('a guard that refuses: 403, 404 or a fault, in the layouts above it, and nothing beneath it runs', async (t) => {
  const { app, logs } = await createTestApp(t, 'fixture')
  resetVaultRuns()
  const forbidden = await app.inject({ url: '/vault/7', headers: { cookie: 'vault=forbid' } })
  t.equal(forbidden.statusCode, 403)
  t.match(forbidden.body, /The vault is closed to you\./, 'the refusal says why')
  t.match(forbidden.body, /Fixture header link/, "in the root layout, above the guard's")
  const data = await app.inject({ url: '/_data/vault/7', headers: { cookie: 'vault=forbid', 'x-layouts-held': 'root,vault' } })
  t.match(data.json(), { kind: 'error', status: 403, failedLayout: 'vault', message: 'The vault is closed to you.' })
  const hidden = await app.inject({ url: '/vault/7', headers: { cookie: 'vault=hide' } })
  t.equal(hidden.statusCode, 404, 'notFound(): the vault is not there for this visitor')
  const posted = await app.inject({
    method: 'POST',
    url: '/vault/7',
    payload: '_action=store&note=x',
    headers: { cookie: 'vault=forbid', 'content-type': FORM, origin: ORIGIN, accept: 'application/json' },
  })
  t.equal(posted.statusCode, 403, 'a post is refused as the page is')
  t.equal(posted.json().error.message, 'The vault is closed to you.')
  const broken = await app.inject({ url: '/vault/7', headers: { cookie: 'vault=break' } })
  t.equal(broken.statusCode, 500, 'a guard that throws is a fault')
  t.notMatch(broken.body, new RegExp(SECRET_MESSAGE), 'whose message stays on the server')
  t.ok(
    logs.some((line) => line.msg === 'guard failed' && line.err?.message === SECRET_MESSAGE),
    'logged as a guard failure',
  )
  t.ok(nothingBeneathRan(), JSON.stringify(vaultRuns))
  t.equal(vaultRuns.guard, 5, 'once per request')
})

t.test("passed: the guard's value reaches the layout's and the page's loaders and the actions, once per request", async (t) => {
  const { app } = await createTestApp(t, 'fixture')
  resetVaultRuns()
  const page = await app.inject({ url: '/vault/7', headers: { cookie: 'vault=open' } })
  t.equal(page.statusCode, 200)
  t.match(page.body, /Vault held by keeper/, "the layout's loader got the guard's value")
  t.match(page.body, /Vault page for keeper/, "and the page's")
  t.equal(page.headers['cache-control'], 'private, no-store', 'a guarded page is never for a shared cache')
  t.same(bootstrapOf(page.body).layouts, { vault: { holder: 'keeper' } })
  t.same(vaultRuns, { guard: 1, ownGuard: 0, layoutLoader: 1, pageLoader: 1, ownLoader: 0, actions: 0 })

  const held = await app.inject({ url: '/_data/vault/7', headers: { cookie: 'vault=open', 'x-layouts-held': 'root,vault' } })
  t.same(held.json().data, { holder: 'keeper' }, 'a held layout skips its loader, never its guard')
  t.equal(vaultRuns.guard, 2)
  t.equal(vaultRuns.layoutLoader, 1)

  const posted = await app.inject({
    method: 'POST',
    url: '/vault/7',
    payload: '_action=store&note=x',
    headers: { cookie: 'vault=open', 'content-type': FORM, origin: ORIGIN },
  })
  t.equal(posted.statusCode, 303, 'the action ran and went back to its page')
  t.equal(vaultRuns.actions, 1)
  t.equal(vaultRuns.guard, 3, 'one guard run for the post')
})

t.test("a route's own guard, in an unguarded layout", async (t) => {
  const { app } = await createTestApp(t, 'fixture')
  resetVaultRuns()
  for (const request of [
    { url: '/own-guard' },
    { url: '/_data/own-guard', headers: { 'x-layouts-held': 'root' } },
    { method: 'POST' as const, url: '/own-guard', payload: '_action=touch', headers: { 'content-type': FORM, origin: ORIGIN } },
  ]) {
    const res = await app.inject(request)
    t.equal(request.url.startsWith('/_data') ? res.json().status : res.statusCode, 403, `${request.url}: refused`)
  }
  t.equal(vaultRuns.ownGuard, 3)
  t.equal(vaultRuns.ownLoader + vaultRuns.actions, 0, 'neither its loader nor its action ran')
  const page = await app.inject({ url: '/own-guard', headers: { cookie: 'own=yes' } })
  t.match(page.body, /Own guard page for owner/)
})

t.test("a guard refusing beneath one that passed: the layouts above it get the outer guard's value and frame the refusal", async (t) => {
  const { app } = await createTestApp(t, 'fixture')
  resetVaultRuns()
  const page = await app.inject({ url: '/vault-deep', headers: { cookie: 'vault=open' } })
  t.equal(page.statusCode, 403, "the route's own guard refused")
  t.match(page.body, /Deeper than you may go\./)
  t.match(page.body, /Vault held by keeper/, "in the vault layout, whose loader had the vault guard's value")
  const data = await app.inject({ url: '/_data/vault-deep', headers: { cookie: 'vault=open' } })
  t.match(data.json(), { kind: 'error', status: 403, layouts: { vault: { holder: 'keeper' } } })
  t.equal(vaultRuns.pageLoader, 0, "the page's loader never ran")
  const through = await app.inject({ url: '/vault-deep', headers: { cookie: 'vault=open; deep=yes' } })
  t.match(through.body, /Vault page for deep keeper/, 'the nearest guard passes its own value')
})

t.test('the return path is the page asked for, its query included, never the page-data URL', async (t) => {
  const { app } = await createTestApp(t, 'fixture')
  const doc = await app.inject('/vault/7?tab=a%20b')
  t.equal(doc.headers.location, '/target?next=%2Fvault%2F7%3Ftab%3Da%2520b')
  const data = await app.inject('/_data/vault/7?tab=x')
  t.equal(data.json().location, '/target?next=%2Fvault%2F7%3Ftab%3Dx')
})

t.test('/api routes take the same guard as a route option, and the same session', async (t) => {
  async function vaultApi(api: FastifyInstance) {
    api.get('/vault', { config: { guard: vaultGuard } }, async (request) => guardValue(request, vaultGuard))
    api.post('/vault/note', { config: { guard: vaultGuard } }, async (request) => {
      const session = await sessionOf(request)
      session.set('note', (request.body as { note: string }).note)
      return { ok: true }
    })
    api.get('/vault/note', { config: { guard: vaultGuard } }, async (request) => ({ note: (await sessionOf(request)).get('note') ?? null }))
    api.get('/unguarded', async (request) => guardValue(request, vaultGuard))
  }
  const { app } = await createTestApp(t, 'fixture', { apiRoutes: [vaultApi] })
  const signedOut = await app.inject('/api/vault')
  t.equal(signedOut.statusCode, 401, "a guard's redirect is a 401 to a script")
  t.match(signedOut.json(), { error: { code: 'APP_ERR_UNAUTHORIZED', message: 'Sign in to use this route.' } })
  const forbidden = await app.inject({ url: '/api/vault', headers: { cookie: 'vault=forbid' } })
  t.equal(forbidden.statusCode, 403)
  t.match(forbidden.json(), { error: { message: 'The vault is closed to you.' } })
  t.same((await app.inject({ url: '/api/vault', headers: { cookie: 'vault=open' } })).json(), { holder: 'keeper' })

  const notJson = await app.inject({ method: 'POST', url: '/api/vault/note', payload: '{not json', headers: { 'content-type': 'application/json' } })
  t.equal(notJson.statusCode, 401, 'refused before the body is read')
  const stored = await app.inject({
    method: 'POST',
    url: '/api/vault/note',
    payload: { note: 'remember me' },
    headers: { cookie: 'vault=open' },
  })
  const session = String(stored.headers['set-cookie']).split(';')[0]!
  t.match(session, /^session=./, 'what the route set in the session goes out with its answer')
  const read = await app.inject({ url: '/api/vault/note', headers: { cookie: `vault=open; ${session}` } })
  t.same(read.json(), { note: 'remember me' }, 'and is read back by the next request')
  t.equal((await app.inject('/api/unguarded')).statusCode, 500, 'guardValue on a route without the guard is a bug: a fault')
})
