/**
 * `npm run serve`, as docs/deploy.md tells operators to run an instance: a SIGTERM sent
 * to that process (npm's) drains the server like one sent to node itself. npm passes
 * the signal to the script's process; the script `exec`s node, so that process is the
 * server and not a shell that would die of the signal and leave node running.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { copyFileSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { newBuildDir, projectRoot } from '../helpers/build.js'
import { startInFlightPost, waitUntilRefused } from '../helpers/in-flight.js'
import { freePort } from '../helpers/ports.js'
import { buildDist, waitForOutput, type PrintingProcess } from '../helpers/server-process.js'
import { waitUntil } from '../helpers/wait.js'

const dist = await buildDist(t)

t.test('npm run serve: SIGTERM to npm drains an in-flight request and exits 0', async (t) => {
  const scripts = (JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts
  t.match(scripts.serve, /^exec node dist\/server\/main\.js$/, 'the script replaces its shell with node')
  // A deploy's folder: this package.json beside a built dist/ (a link to this test's build).
  const dir = newBuildDir('serve')
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  copyFileSync(path.join(projectRoot, 'package.json'), path.join(dir, 'package.json'))
  symlinkSync(dist, path.join(dir, 'dist'))

  const port = await freePort()
  const child = spawn('npm', ['run', 'serve'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? dir,
      HOST: '127.0.0.1',
      PORT: String(port),
      SHUTDOWN_DELAY_MS: '300',
      SHUTDOWN_GRACE_MS: '4000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  const npm: PrintingProcess = { child, output: () => output }
  const exited = once(child, 'exit')
  t.teardown(() => {
    // Whatever is left of the server too, should the test fail half-way.
    const server = /"pid":(\d+)/.exec(output)?.[1]
    if (server) {
      try {
        process.kill(Number(server), 'SIGKILL')
      } catch {}
    }
    child.kill('SIGKILL')
  })

  await waitForOutput(npm, new RegExp(`"msg":"Server listening at http://127\\.0\\.0\\.1:${port}"`))
  const serverPid = Number(/"pid":(\d+)/.exec(output)![1])
  t.not(serverPid, child.pid, 'npm is the process the operator signals; node is another one')
  const origin = `http://127.0.0.1:${port}`
  const inFlight = startInFlightPost(origin)
  await waitUntil(
    () => /"url":"\/contact".*"msg":"incoming request"|"msg":"incoming request".*"url":"\/contact"/.test(output),
    'the server has the request',
  )

  child.kill('SIGTERM')
  await waitForOutput(npm, /"signal":"SIGTERM"[^\n]*"msg":"draining: readiness is 503"/)
  await waitUntilRefused(origin)
  const answer = await inFlight.finish()
  t.equal(answer.status, 200, 'the in-flight request is answered')
  t.equal(JSON.parse(answer.body).ok, true)
  const [code, signal] = await exited
  t.equal(signal, null)
  t.equal(code, 0, "npm exits 0, with node's status")
  t.match(output, /"msg":"stopped"/)
  t.notMatch(output, /second signal/, 'node got the signal once')
})
