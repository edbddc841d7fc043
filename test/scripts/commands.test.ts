/**
 * The project's own commands, run as a developer runs them on a copy of the project:
 * `npm run build` refuses a type error before bundling, with tsc's message;
 * `npm test -- <file>` runs just that file, without the type check and without
 * looking for tools the file does not declare; Ctrl-C during the test builds leaves
 * no half-made one behind; every test file that uses Chromium, nginx or Redis
 * declares it, so the declaration cannot drift from the code; and the unit tier
 * holds the files that start no process and need no tool.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { projectRoot } from '../helpers/build.js'
import { copyProject } from '../helpers/project-copy.js'
import { waitUntil } from '../helpers/wait.js'
import { buildsOf, isUnitTier, needsOf, testFiles, usesSharedBuilds } from '../../scripts/test-files.js'

function run(dir: string, args: readonly string[], env: Record<string, string> = {}) {
  const result = spawnSync('npm', args, { cwd: dir, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 240_000 })
  return { status: result.status, output: `${result.stdout}${result.stderr}` }
}

t.test('a type error stops npm run build before bundling, with tsc saying where', async (t) => {
  const copy = copyProject(t, 'typo')
  copy.edit('client/pages/contact.tsx', (text) => text.replace('action="send"', 'action="addNotes"'))
  const build = run(copy.dir, ['run', 'build'])
  t.not(build.status, 0, 'the build fails')
  t.match(build.output, /client\/pages\/contact\.tsx\(\d+,\d+\): error TS\d+/, "tsc's message names the file and line")
  t.notOk(existsSync(path.join(copy.dir, 'dist/server/main.js')), 'nothing was bundled')
})

t.test('npm test -- <file> runs that file alone, with no type check and no tool it does not need', async (t) => {
  const copy = copyProject(t, 'one-file', ['test/shared/digest.test.ts', 'test/helpers'])
  // A type error elsewhere: the full suite would stop at the type check.
  copy.edit('client/pages/contact.tsx', (text) => text.replace('action="send"', 'action="addNotes"'))
  const result = run(copy.dir, ['test', '--', 'test/shared/digest.test.ts'], {
    // Set to nothing that exists: a lookup would stop the run.
    CHROMIUM_PATH: '/nonexistent/chromium',
    NGINX_PATH: '/nonexistent/nginx',
    REDIS_SERVER_PATH: '/nonexistent/redis-server',
  })
  t.equal(result.status, 0, result.output.slice(-600))
  t.match(result.output, /assertions: [1-9]\d* passed, 0 failed/)
  t.notMatch(result.output, /error TS/, 'no type check ran')
})

t.test('Ctrl-C while npm test makes the test builds ends the run and leaves no half-made one behind', async (t) => {
  const files = ['test/server/theme.test.ts', 'test/server/layouts.test.ts'] // the application and the fixture
  const copy = copyProject(t, 'interrupted', [...files, 'test/helpers', 'test/fixtures'])
  const builds = path.join(copy.dir, '.cache/test-builds')
  const halfMade = () => (existsSync(builds) ? readdirSync(builds).filter((name) => name.startsWith('.tmp-')) : [])
  const run = spawn(process.execPath, ['--import', 'tsx', 'scripts/test.ts', ...files], { cwd: copy.dir, stdio: 'ignore' })
  t.teardown(() => void run.kill('SIGKILL'))
  const exited = new Promise<number | null>((resolve) => run.once('exit', resolve))
  await waitUntil(() => halfMade().length > 0, 'the test builds started', 60_000)
  run.kill('SIGINT')
  t.equal(await exited, 130, 'the run ends as interrupted')
  t.same(halfMade(), [], 'the half-made builds were removed')
})

t.test('npm test -- <files> that start no application builds nothing first', async (t) => {
  const files = ['test/shared/digest.test.ts', 'test/shared/html.test.ts']
  const copy = copyProject(t, 'no-builds', [...files, 'test/helpers'])
  const result = run(copy.dir, ['test', '--', ...files])
  t.equal(result.status, 0, result.output.slice(-600))
  t.match(result.output, /assertions: [1-9]\d* passed, 0 failed/)
  t.notMatch(result.output, /Built /, 'no test build was made')
  t.notOk(existsSync(path.join(copy.dir, '.cache/test-builds')), 'nor a folder for one')
})

t.test('the builds a file uses: each app it starts, or the built server', async (t) => {
  t.same(
    buildsOf(projectRoot, 'test/server/sessions.test.ts').sort(),
    ['fixture-markup', 'production-markup'],
    'createTestApp, with and without an app named',
  )
  t.same(buildsOf(projectRoot, 'test/browser/app.test.ts'), ['production'], 'browserTestApp: the scripts bundled')
  t.ok(buildsOf(projectRoot, 'test/server/compression.test.ts').includes('deployed-markup'), 'the application as deployed')
  t.same(buildsOf(projectRoot, 'test/server/main.test.ts'), ['dist'], 'buildDist')
  t.ok(usesSharedBuilds(projectRoot, 'test/server/layouts.test.ts'), 'buildFor')
  t.notOk(usesSharedBuilds(projectRoot, 'test/shared/digest.test.ts'), 'none')
})

t.test('the unit tier: the files that need no tool and start no process, however indirectly', async (t) => {
  for (const file of ['test/shared/location.test.ts', 'test/server/plugins/pages.test.ts', 'test/server/streaming.test.ts']) {
    t.ok(isUnitTier(projectRoot, file), `${file}: in the unit tier`)
  }
  const outside: Array<[file: string, why: string]> = [
    ['test/proxy/nginx.test.ts', 'declares nginx'],
    ['test/browser/app.test.ts', 'declares Chromium'],
    ['test/scripts/commands.test.ts', 'starts npm (child_process)'],
    ['test/server/main.test.ts', 'starts the built server (through helpers/server-process.ts)'],
    ['test/scripts/markup-builds.test.ts', "reads the builds a browser runs, which the unit tier's files never need"],
  ]
  for (const [file, why] of outside) t.notOk(isUnitTier(projectRoot, file), `${file}: not, it ${why}`)
})

t.test('a tool a chosen file declares is looked for before any test runs', async (t) => {
  const result = run(projectRoot, ['test', '--', 'test/proxy/nginx.test.ts'], { NGINX_PATH: '/nonexistent/nginx' })
  t.equal(result.status, 1)
  t.match(result.output, 'NGINX_PATH is set to "/nonexistent/nginx", which is not an executable file.')
})

t.test('every test file that uses Chromium, nginx or Redis declares it on its first line', async (t) => {
  for (const file of testFiles(projectRoot)) {
    const text = readFileSync(path.join(projectRoot, file), 'utf8')
    const declared = needsOf(projectRoot, file)
    if (/helpers\/(browser|dev-server)\.js'/.test(text)) t.ok(declared.includes('chromium'), `${file} declares Chromium`)
    if (/helpers\/nginx\.js'/.test(text)) t.ok(declared.includes('nginx'), `${file} declares nginx`)
    if (/helpers\/redis\.js'/.test(text)) t.ok(declared.includes('redis'), `${file} declares Redis`)
  }
})
