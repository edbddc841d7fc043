/**
 * The container image (Dockerfile, .dockerignore) without a container engine: what
 * the file promises is read with a small parser (test/helpers/dockerfile.ts), what the
 * runtime stage holds is checked against what the built server imports, and the
 * image's command runs as the image runs it: as PID 1 of its own PID namespace, with
 * the image's environment, stopped by SIGTERM while a request is in flight.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { newBuildDir, projectRoot } from '../helpers/build.js'
import { copiesFrom, envOf, execForm, healthcheckOf, instructionsOf, parseDockerfile, readDockerfile, type Stage } from '../helpers/dockerfile.js'
import { startInFlightPost, waitUntilRefused } from '../helpers/in-flight.js'
import { freePort } from '../helpers/ports.js'
import { buildDist, waitForOutput, type PrintingProcess } from '../helpers/server-process.js'
import { waitUntil } from '../helpers/wait.js'

// Built once for the file (and removed when it ends).
const dist = await buildDist(t)
const dockerfile = readDockerfile(path.join(projectRoot, 'Dockerfile'))
const runtime: Stage = dockerfile.stages.at(-1)!
const packageJson = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>
  devDependencies: Record<string, string>
}

t.test('the Dockerfile: a build stage, and a runtime stage with production dependencies and dist/ only', async (t) => {
  t.ok(dockerfile.stages.length >= 2, 'multi-stage')
  const build = dockerfile.stages[0]!
  t.ok(build.name, 'the build stage is named')
  const buildRuns = instructionsOf(build, 'RUN').map((run) => run.args)
  t.ok(
    buildRuns.some((run) => /\bnpm ci\b(?!.*--omit)/.test(run)),
    'the build stage installs every dependency (npm ci)',
  )
  t.ok(
    buildRuns.some((run) => /\bnpm run build\b/.test(run)),
    'and builds',
  )

  const runtimeRuns = instructionsOf(runtime, 'RUN').map((run) => run.args)
  t.ok(
    runtimeRuns.some((run) => /\bnpm ci\b.*--omit=dev\b/.test(run)),
    'the runtime stage installs with --omit=dev',
  )
  t.notOk(
    runtimeRuns.some((run) => /\bnpm (run )?build\b|\bnpm install\b/.test(run)),
    'and builds nothing',
  )
  const copies = instructionsOf(runtime, 'COPY')
  const distCopy = copies.find((copy) => /\/dist\/?\s+\S*dist\/?$/.test(copy.args))
  t.ok(distCopy, 'the runtime stage copies dist/')
  t.equal(copiesFrom(distCopy!), build.name, 'from the build stage')
  const fromContext = copies.filter((copy) => copiesFrom(copy) === undefined).map((copy) => copy.args)
  t.same(fromContext, ['package.json package-lock.json ./'], 'from the build context: only the package files (for npm ci and "type": "module")')
})

t.test('the Dockerfile: non-root, node as the command, health check, stop signal, environment, port', async (t) => {
  const users = instructionsOf(runtime, 'USER')
  t.ok(users.length > 0, 'a USER')
  const user = users.at(-1)!.args.split(':')[0]!
  t.notOk(['root', '0', ''].includes(user), `USER ${user} is not root`)
  t.match(user, /^[1-9]\d*$/, 'numeric, so that Kubernetes can check runAsNonRoot')

  const cmd = instructionsOf(runtime, 'CMD').at(-1)
  t.ok(cmd, 'a CMD')
  const command = execForm(cmd!.args)
  t.ok(command, 'CMD in the exec (JSON array) form: no shell between the signal and node')
  t.same(command, ['node', 'dist/server/main.js'], 'node runs the server, never npm')
  t.same(instructionsOf(runtime, 'ENTRYPOINT'), [], 'no ENTRYPOINT wraps it')

  const healthcheck = instructionsOf(runtime, 'HEALTHCHECK').at(-1)
  t.ok(healthcheck, 'a HEALTHCHECK')
  const { command: check } = healthcheckOf(healthcheck!.args)
  t.ok(Array.isArray(check), 'exec form')
  t.equal((check as string[])[0], 'node', 'run with node itself (no curl in the image)')
  t.match((check as string[]).join(' '), '/api/health', 'on /api/health')

  t.same(
    instructionsOf(runtime, 'STOPSIGNAL').map((i) => i.args),
    ['SIGTERM'],
  )
  const env = envOf(runtime)
  t.equal(env.HOST, '0.0.0.0', 'listens on every interface of the container')
  t.equal(env.NODE_ENV, 'production')
  t.equal(env.UPLOAD_DIR, '/tmp', 'uploads go to /tmp (an emptyDir when the root file system is read-only)')
  t.same(
    instructionsOf(runtime, 'EXPOSE').map((i) => i.args),
    ['3000'],
  )
})

t.test('the Dockerfile reader itself: continuations, comments, JSON arrays, both ENV forms', async (t) => {
  const parsed = parseDockerfile(
    [
      'ARG BASE=x',
      'FROM $BASE AS one',
      'RUN a \\',
      '  # a comment inside',
      '  && b',
      'ENV A=1 B="two words"',
      'ENV C three words',
      'FROM --platform=linux/amd64 scratch',
      'COPY --from=one /x /y',
      'CMD ["node", "x.js"]',
      'HEALTHCHECK --interval=5s CMD ["node", "-e", "1"]',
    ].join('\n'),
  )
  t.equal(parsed.preamble.length, 1)
  t.same(
    parsed.stages.map((stage) => [stage.name, stage.from]),
    [
      ['one', '$BASE'],
      [undefined, 'scratch'],
    ],
  )
  t.equal(parsed.stages[0]!.instructions[0]!.args, 'a && b')
  t.same(envOf(parsed.stages[0]!), { A: '1', B: 'two words', C: 'three words' })
  t.equal(copiesFrom(parsed.stages[1]!.instructions[0]!), 'one')
  t.same(execForm(parsed.stages[1]!.instructions[1]!.args), ['node', 'x.js'])
  t.equal(execForm('node x.js'), undefined, 'the shell form')
  t.same(healthcheckOf(parsed.stages[1]!.instructions[2]!.args), { options: { interval: '5s' }, command: ['node', '-e', '1'] })
})

t.test('.dockerignore keeps installed and built files, the repository and test output out of the context', async (t) => {
  const ignored = readFileSync(path.join(projectRoot, '.dockerignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
  for (const entry of ['node_modules', 'dist', '.git', 'test/.build', '.tap']) t.ok(ignored.includes(entry), entry)
  t.notOk(
    ignored.some((entry) => /^(server|client|shared|scripts|test|package\.json|package-lock\.json|tsconfig.*)$/.test(entry)),
    'what the build needs stays in',
  )
})

t.test('what the built server imports from node_modules is in "dependencies" (the runtime stage has nothing else)', async (t) => {
  const serverDir = path.join(dist, 'server')
  const imported = new Set<string>()
  for (const file of readdirSync(serverDir).filter((name) => name.endsWith('.js'))) {
    const text = readFileSync(path.join(serverDir, file), 'utf8')
    for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["']([^"'./][^"']*)["']/g)) {
      const specifier = match[1]!
      if (specifier.startsWith('node:')) continue
      imported.add(specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!)
    }
  }
  t.ok(imported.has('fastify') && imported.has('react'), "the scan finds the bundle's imports")
  for (const name of [...imported].sort()) {
    t.ok(packageJson.dependencies[name], `${name} is a production dependency`)
  }
  const launcher = readFileSync(path.join(serverDir, 'main.js'), 'utf8')
  t.notMatch(launcher, /\.\.\/\.\.\/|\b(server|client|shared)\/[\w/-]+\.tsx?\b/, 'the launcher reads nothing from the sources')
})

t.test("as PID 1 of its own PID namespace, with the image's environment: SIGTERM drains an in-flight request, exit 0", async (t) => {
  if (process.getuid?.() !== 0) {
    t.comment('not run: a PID namespace (unshare --pid) needs root here; run the suite as root to cover it')
    return
  }
  // The image's layout: the working directory holds dist/ (a link to this test's build).
  const app = newBuildDir('image')
  t.teardown(() => rmSync(app, { recursive: true, force: true }))
  symlinkSync(dist, path.join(app, 'dist'))

  const port = await freePort()
  const command = execForm(instructionsOf(runtime, 'CMD').at(-1)!.args)!
  const env = {
    PATH: process.env.PATH ?? '',
    ...envOf(runtime),
    // The container's 0.0.0.0 is this test's loopback; the rest as the image sets it.
    HOST: '127.0.0.1',
    PORT: String(port),
    SHUTDOWN_DELAY_MS: '300',
    // Idle connections (fetch's pool) are closed after half of this: a shorter test.
    SHUTDOWN_GRACE_MS: '4000',
  }
  const child = spawn('unshare', ['--pid', '--fork', '--mount-proc', '--kill-child', ...command], {
    cwd: app,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  const server: PrintingProcess = { child, output: () => output }
  t.teardown(() => void child.kill('SIGKILL'))
  const exited = once(child, 'exit')

  await waitForOutput(server, new RegExp(`"msg":"Server listening at http://127\\.0\\.0\\.1:${port}"`))
  const listening = server
    .output()
    .split('\n')
    .find((line) => line.includes('Server listening'))!
  t.equal(JSON.parse(listening).pid, 1, 'node is PID 1 in its namespace')
  // The namespace's PID 1, as this test sees it: unshare's only child.
  const children = () =>
    readdirSync(`/proc/${child.pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${child.pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number),
    )
  t.equal(children().length, 1)
  const pid1 = children()[0]!
  t.match(readFileSync(`/proc/${pid1}/cmdline`, 'utf8').split('\0').join(' '), 'node dist/server/main.js')
  const handled = BigInt('0x' + /^SigCgt:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid1}/status`, 'utf8'))![1]!)
  t.ok(handled & (1n << 14n), 'SIGTERM (15) is caught by node: its own handler, not a default PID 1 lacks')

  const origin = `http://127.0.0.1:${port}`
  t.equal((await fetch(`${origin}/api/ready`)).status, 200)
  const inFlight = startInFlightPost(origin)
  await waitUntil(
    () => /"url":"\/contact".*"msg":"incoming request"|"msg":"incoming request".*"url":"\/contact"/.test(output),
    'the server has the request',
  )

  process.kill(pid1, 'SIGTERM')
  await waitForOutput(server, /"msg":"draining: readiness is 503"/)
  await waitUntilRefused(origin)
  const answer = await inFlight.finish()
  t.equal(answer.status, 200, 'the in-flight request is answered')
  t.equal(JSON.parse(answer.body).ok, true, 'and its action ran')
  t.equal(answer.headers.connection, 'close', 'on a connection the stopping server closes')
  const [code, signal] = await exited
  t.equal(signal, null)
  t.equal(code, 0, 'PID 1 exited 0 (unshare passes its status on)')
  t.match(output, /"msg":"stopped"/)
})
