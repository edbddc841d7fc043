/**
 * The production server as an operator runs it: the built bundle started with node,
 * configured by environment variables, stopped by a signal.
 */
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import { fileOf, multipartBody, send } from '../helpers/multipart.js'
import { buildDist, listeningOrigin, startServer } from '../helpers/server-process.js'
import { waitUntil } from '../helpers/wait.js'
import { rawRequest } from '../helpers/raw-http.js'

const dist = await buildDist(t)
const start = (env: Record<string, string>) => startServer(dist, env)

// One process for what a normal life shows: it serves, never loads development code,
// and on SIGTERM drains (readiness 503 at once, pages still served) and exits 0. The
// connections fetch keeps open are idle at the stop: the server waits for them half the
// grace period (a proxy's own idle timeout is shorter), then closes them.
t.test('the built server serves the example screens without development code, then drains on SIGTERM and exits 0', async (t) => {
  const forbid = path.join(import.meta.dirname, '../fixtures/forbid-dev-modules.mjs')
  const server = start({ PORT: '0', SHUTDOWN_DELAY_MS: '1500', SHUTDOWN_GRACE_MS: '4000', NODE_OPTIONS: `--import=${forbid}` })
  t.teardown(() => void server.child.kill('SIGKILL'))
  const origin = await listeningOrigin(server)

  const expectations: Array<[string, number, string]> = [
    ['/', 200, 'text/html'],
    ['/items/7', 200, 'text/html'],
    ['/about', 200, 'text/html'],
    ['/contact', 200, 'text/html'],
    ['/items/abc', 404, 'text/html'],
    ['/nope', 404, 'text/html'],
    ['/api/health', 200, 'application/json'],
    ['/api/nope', 404, 'application/json'],
  ]
  for (const [url, status, type] of expectations) {
    const res = await fetch(origin + url)
    t.equal(res.status, status, url)
    t.match(res.headers.get('content-type'), type, url)
    await res.arrayBuffer()
  }
  const items = await (await fetch(`${origin}/items/7`)).text()
  t.equal(items.match(/<tr><td>\d+<\/td>/g)?.length, 200, 'rendered by the production bundle')
  // A character outside Latin-1 makes the server hold and encode a whole document as UTF-16:
  // the stylesheet inlined into every page keeps its stars as escapes, the items layout draws them from it.
  t.match(items, /content:"\\2606"/, "the star toggle's glyph is the stylesheet's, escaped")
  t.notMatch(items, /[^\x00-\x7f]/, 'the items page is ASCII')
  t.notMatch(server.output(), /Warning|development/i, 'React runs its production build')
  t.notMatch(server.output(), 'development-only module', 'no Vite, no plugin of development loaded')

  t.equal((await fetch(`${origin}/api/ready`)).status, 200)
  const exited = once(server.child, 'exit')
  server.child.kill('SIGTERM')
  await waitUntil(() => server.output().includes('draining: readiness is 503'), 'the drain started')
  t.equal((await fetch(`${origin}/api/ready`)).status, 503, 'not ready')
  t.equal((await fetch(`${origin}/api/health`)).status, 200, 'still alive')
  t.equal((await fetch(`${origin}/items/7`)).status, 200, 'still serving pages')
  const [code] = await exited
  t.equal(code, 0)
  t.match(server.output(), /"msg":"stopped"/)
})

t.test('a second signal exits at once', async (t) => {
  const server = start({ PORT: '0', SHUTDOWN_DELAY_MS: '60000' })
  t.teardown(() => void server.child.kill('SIGKILL'))
  await listeningOrigin(server)
  const exited = once(server.child, 'exit')
  server.child.kill('SIGTERM')
  await waitUntil(() => server.output().includes('draining'), 'the drain started')
  server.child.kill('SIGINT')
  const [code] = await exited
  t.equal(code, 1)
  t.match(server.output(), /second signal: exiting now/)
})

t.test('with SENTRY_DSN the built server loads @sentry/node first and still serves', async (t) => {
  const server = start({ PORT: '0', SENTRY_DSN: 'http://publickey@127.0.0.1:9/1', SHUTDOWN_DELAY_MS: '0' })
  t.teardown(() => void server.child.kill('SIGKILL'))
  const origin = await listeningOrigin(server)
  // Closed after the answer: no idle connection for the stop to wait out.
  t.equal((await fetch(`${origin}/items/7`, { headers: { connection: 'close' } })).status, 200)
  server.child.kill('SIGTERM')
  const [code] = await once(server.child, 'exit')
  t.equal(code, 0, 'shutdown flushes monitoring (nothing queued) and exits 0')
})

t.test('a malformed SENTRY_DSN stops the process, naming it', async (t) => {
  const server = start({ PORT: '0', SENTRY_DSN: 'not-a-dsn' })
  const [code] = await once(server.child, 'exit')
  t.equal(code, 1)
  t.match(server.output(), /Configuration error: SENTRY_DSN must be a Sentry DSN/)
})

t.test('a bad environment variable stops the process with exit 1, naming the variable', async (t) => {
  const server = start({ PORT: 'eighty' })
  const [code] = await once(server.child, 'exit')
  t.equal(code, 1)
  t.match(server.output(), /Configuration error: PORT must be a port number/)
})

t.test('a port in use stops the process with its own exit code and a line naming the port', async (t) => {
  const first = start({ PORT: '0' })
  t.teardown(() => void first.child.kill('SIGKILL'))
  const port = new URL(await listeningOrigin(first)).port
  const second = start({ PORT: port })
  const [code] = await once(second.child, 'exit')
  t.equal(code, 3)
  t.match(second.logLines().at(-1)?.msg, `could not start: port ${port} is already in use on 127.0.0.1: stop the process`)
})

// Every variable's bad values and their messages are checked in-process
// (test/server/config.test.ts); here, once each, what only the process does: a value
// its parser refuses, and a client build missing where CLIENT_DIR says.
t.test('bad configuration stops the process with exit 1 and one line naming the variable, no stack', async (t) => {
  const cases: Array<[Record<string, string>, string]> = [
    [{ TRUST_PROXY: '10.0.0.0/99' }, 'TRUST_PROXY'],
    [{ CLIENT_DIR: path.join(dist, 'no-such-build') }, 'CLIENT_DIR'],
    // The product's own variable (server/config.ts), read by the same start.
    [{ DEMO_ACCOUNT: 'ops@example.com:secret-pass,second@example.com:short' }, 'DEMO_ACCOUNT'],
  ]
  for (const [env, variable] of cases) {
    const server = start({ PORT: '0', ...env })
    const [code] = await once(server.child, 'exit')
    t.equal(code, 1, JSON.stringify(env))
    const lines = server.output().trim().split('\n')
    t.equal(lines.length, 1, `${JSON.stringify(env)}: one line`)
    t.match(lines[0], new RegExp(`^Configuration error: ${variable} `), JSON.stringify(env))
    t.notMatch(server.output(), /\n\s+at /, 'no stack')
    if (variable === 'CLIENT_DIR') t.match(server.output(), /run "npm run build"/, 'the message says how to get a build')
    if (variable === 'DEMO_ACCOUNT') {
      t.match(lines[0], 'needs passwords of at least 8 characters; account 2 of 2 (second@example.com) has 5', 'which account and why')
    }
  }
})

t.test('listening on another address with ALLOWED_HOSTS unset: every host answered, one warning at start', async (t) => {
  const server = start({ PORT: '0', HOST: '0.0.0.0', SHUTDOWN_DELAY_MS: '0' })
  t.teardown(() => void server.child.kill('SIGKILL'))
  const origin = (await listeningOrigin(server)).replace('0.0.0.0', '127.0.0.1')
  const warnings = server
    .output()
    .split('\n')
    .filter((line) => line.includes('ALLOWED_HOSTS is unset'))
  t.equal(warnings.length, 1)
  t.match(warnings[0], /"level":40/)
  const res = await rawRequest(origin, 'GET /about HTTP/1.1\r\nHost: anything.example\r\nConnection: close\r\n\r\n')
  t.equal(res.status, 200)
  server.child.kill('SIGTERM')
  await once(server.child, 'exit')
})

/** A folder for UPLOAD_DIR, removed with the test. */
function uploadDir(t: Test): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'main-uploads-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

t.test('a process that exits with an upload in progress takes its temporary file with it', async (t) => {
  const dir = uploadDir(t)
  const server = start({ PORT: '0', SHUTDOWN_DELAY_MS: '0', SHUTDOWN_GRACE_MS: '300', UPLOAD_DIR: dir })
  t.teardown(() => void server.child.kill('SIGKILL'))
  const origin = await listeningOrigin(server)
  const body = multipartBody([
    { name: '_action', value: 'send' },
    { name: 'name', value: 'Slow Sender' },
    { name: 'email', value: 'slow@example.com' },
    { name: 'message', value: 'Half a file' },
    { name: 'attachment', filename: 'scan.pdf', type: 'application/pdf', content: fileOf('pdf', 1024 * 1024) },
  ])
  // Half the file, then the client stalls: the request is in flight when the grace period ends.
  void send(origin, '/contact', body, { stopAfter: body.length / 2 }).catch(() => {})
  await waitUntil(() => readdirSync(dir).length === 1, 'the upload is being written')
  const exited = once(server.child, 'exit')
  server.child.kill('SIGTERM')
  const [code] = await exited
  t.equal(code, 1, 'the grace period ran out')
  t.match(server.output(), /outlasted the grace period/)
  t.same(readdirSync(dir), [], 'no temporary file left behind')
})

t.test('at start, upload files left by a process killed outright are removed; recent ones and others are not', async (t) => {
  const dir = uploadDir(t)
  const stale = `upload-${randomUUID()}`
  const recent = `upload-${randomUUID()}`
  const others = ['upload-notes.txt', 'report.pdf']
  for (const name of [stale, recent, ...others]) writeFileSync(path.join(dir, name), 'x')
  const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60_000)
  for (const name of [stale, ...others]) utimesSync(path.join(dir, name), twoHoursAgo, twoHoursAgo)
  const server = start({ PORT: '0', SHUTDOWN_DELAY_MS: '0', UPLOAD_DIR: dir })
  t.teardown(() => void server.child.kill('SIGKILL'))
  await listeningOrigin(server)
  await waitUntil(() => server.output().includes('removed upload files left by an earlier process'), 'the sweep')
  t.same(readdirSync(dir).sort(), [recent, ...others].sort(), 'only the old temporary file went')
  t.match(
    server.logLines().find((line) => line.msg === 'removed upload files left by an earlier process'),
    { removed: 1, uploadDir: dir },
  )
  server.child.kill('SIGTERM')
  await once(server.child, 'exit')
})
