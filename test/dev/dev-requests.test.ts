/**
 * `npm run dev` answers what it should and only that: a second one on a port in use
 * stops at once. Each test runs the real command on its own copy of the project.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import t from 'tap'
import { startDevServer } from '../helpers/dev-server.js'

/** Whether any process of the group led by `pid` is still alive. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0)
    return true
  } catch {
    return false
  }
}

t.test('a second npm run dev on a port in use exits at once, naming the port, and leaves nothing running', async (t) => {
  const dev = await startDevServer(t)
  const port = new URL(dev.origin).port
  const second = spawn(process.execPath, ['--import', 'tsx', 'scripts/dev.ts'], {
    cwd: dev.dir,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: port },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  let output = ''
  second.stdout.on('data', (chunk) => (output += chunk))
  second.stderr.on('data', (chunk) => (output += chunk))
  const killer = setTimeout(() => process.kill(-second.pid!, 'SIGKILL'), 20_000)
  const started = performance.now()
  const [code] = await once(second, 'exit')
  clearTimeout(killer)
  t.ok(performance.now() - started < 5_000, 'at once')
  t.equal(code, 1)
  t.notMatch(output, /\[vite\]|SESSION_SECRET/, 'before the server (and Vite) was started')
  t.match(output, `port ${port} is already in use on 127.0.0.1`)
  t.match(output, 'set PORT to another port', 'it says what to do')
  t.notOk(groupAlive(second.pid!), 'no process of it is left')
  t.equal((await fetch(`${dev.origin}/api/health`)).status, 200, 'the first one still answers')
})
