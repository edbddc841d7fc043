// test-needs: chromium
/**
 * `npm run dev` without SESSION_SECRET keeps the session secret it made in
 * .cache/dev-session-secret: a restart after an edit does not end the sessions (sign the
 * developer out). Runs the real command on its own copy of the project.
 */
import { statSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { sessionCookie } from '../helpers/cookies.js'
import { startDevServer } from '../helpers/dev-server.js'

const NOTICE = '[dev] sessions are sealed with the secret kept in .cache/dev-session-secret: a restart keeps you signed in'

t.test('a session outlives a restart of the development server', async (t) => {
  const dev = await startDevServer(t)
  t.equal(dev.output().split(NOTICE).length - 1, 1, 'the terminal says so, once')
  t.notMatch(dev.output(), 'SESSION_SECRET is unset', 'no warning of a key made at start')
  const file = path.join(dev.dir, '.cache/dev-session-secret')
  t.equal(statSync(file).mode & 0o777, 0o600, 'the secret is readable by its owner alone')

  const sent = await fetch(`${dev.origin}/contact`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: dev.origin, 'content-type': 'application/x-www-form-urlencoded' },
    body: '_action=send&name=Ann+Example&email=ann%40example.com&message=Hello+there',
  })
  t.equal(sent.status, 303)
  const cookie = sessionCookie({ headers: { 'set-cookie': sent.headers.getSetCookie() } })
  t.ok(cookie, 'the session cookie')

  const from = dev.output().length
  dev.edit('server/pages/contact.ts', (text) => `${text}\n// edited\n`)
  await dev.waitForOutput(/server\/pages\/contact\.ts changed: restarting[^]*Development server ready at /, from)
  const page = await fetch(`${dev.origin}/contact`, { headers: { cookie } })
  t.match(await page.text(), 'Thank you, Ann Example', 'the restarted server opens the session sealed before')
  t.equal(dev.output().split(NOTICE).length - 1, 1, 'said once, not at every restart')
})
