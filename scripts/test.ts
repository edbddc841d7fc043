/**
 * `npm test`: the type check, the lint, the test builds and every test file, side by
 * side (scripts/test-pool.ts), one step per core plus one at once (`TEST_JOBS` sets
 * another count). `npm test -- <file>...`: only those files, without the type check
 * and the lint (seconds, for the edit-test loop). `npm run test:unit` (`--unit`): the
 * unit tier alone (docs/decisions/023-test-tiers.md; which files: `isUnitTier` in
 * scripts/test-files.ts).
 *
 * A test file that needs Chromium, nginx or Redis says so on its first line
 * (`// test-needs: chromium, nginx, redis`); only then is the tool looked for
 * (scripts/test-tools.ts).
 *
 * The builds the chosen files use (test/helpers/build.ts) that are not kept from an
 * earlier run are steps too, each in a process of its own; a test file starts once its
 * builds are made, and only reads them.
 *
 * A tap option (`--grep`, `--bail`) runs the files with tap's runner instead, given
 * them by name: TypeScript runs through tsx, not tap's own plugin, and tap only globs
 * for the extensions its plugins announce.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { availableParallelism, constants as osConstants } from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { buildsOf, expectedSeconds, isUnitTier, needsOf, testFiles } from './test-files.js'
import { runSteps, type Step, type StepOutcome } from './test-pool.js'
import { transpileForTests, transpiledPath } from './test-transpile.js'
import { CHROMIUM, ensureTool, fail, NGINX, REDIS } from './test-tools.js'
import type { BuildKind } from '../test/helpers/build.js'

const began = performance.now()
const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
function isFile(file: string): boolean {
  try {
    return statSync(file).isFile()
  } catch {
    return false
  }
}

function isDirectory(dir: string): boolean {
  return statSync(dir, { throwIfNoEntry: false })?.isDirectory() ?? false
}

/**
 * Every process the run starts keeps its temporary files in the checkout's .cache/tmp. tsx
 * keeps what it compiled in `<tmpdir>/tsx-<uid>` and, in each process that compiles
 * anything, reads that whole folder to expire old entries: shared by every checkout on
 * the machine (each fresh clone compiles every file anew, its paths being new), it grew to
 * a hundred thousand files, and the scan cost each test process up to a second of CPU.
 */
const tmpDir = path.join(projectRoot, '.cache/tmp')
mkdirSync(tmpDir, { recursive: true })
process.env.TMPDIR = tmpDir

/** How long each file took when it last ran here: the order of the next run. */
const TIMES_FILE = path.join(projectRoot, '.cache/test-times.json')

function readRecordedTimes(): Readonly<Record<string, number>> {
  try {
    return JSON.parse(readFileSync(TIMES_FILE, 'utf8')) as Record<string, number>
  } catch {
    return {}
  }
}

function recordTimes(outcomes: readonly StepOutcome[]): void {
  const times = { ...readRecordedTimes() }
  for (const { name, kind, seconds } of outcomes) if (kind === 'test') times[name] = Math.round(seconds * 10) / 10
  mkdirSync(path.dirname(TIMES_FILE), { recursive: true })
  writeFileSync(TIMES_FILE, JSON.stringify(times, null, 1))
}

/** The processes running now (builders, then the test files or tap): a signal to this one is passed on to them. */
const running = new Set<ChildProcess>()
let stopping: NodeJS.Signals | undefined
// Ctrl-C or a CI's SIGTERM: builders remove their half-made builds and exit, test
// files end theirs; this process ends when they have, as interrupted.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    stopping ??= signal
    if (running.size === 0) process.exit(128 + osConstants.signals[signal])
    for (const child of running) child.kill(signal)
  })
}

function start(
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; stdout?: 'pipe' | 'inherit'; stderr?: 'pipe' | 'inherit' } = {},
): ChildProcess {
  const child = spawn(command, args, {
    cwd: projectRoot,
    stdio: ['ignore', options.stdout ?? 'inherit', options.stderr ?? 'inherit'],
    env: options.env ?? process.env,
  })
  running.add(child)
  child.once('close', () => running.delete(child))
  return child
}

const exitOf = (child: ChildProcess) =>
  new Promise<number>((resolve) => child.once('close', (code, signal) => resolve(code ?? 128 + (signal ? osConstants.signals[signal] : 1))))

/** tap's configuration (package.json): its timeout for every file, its `node-arg` for a file run through tsx. */
const { tap: tapConfig } = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as {
  tap: { 'node-arg'?: string[]; timeout?: number }
}
const timeoutSeconds = tapConfig.timeout ?? 30

// Arguments starting with `-` are tap's own options (`--grep`, `--bail`), passed on;
// `--unit` is this script's.
const unit = process.argv.includes('--unit')
const tapOptions = process.argv.slice(2).filter((arg) => arg.startsWith('-') && arg !== '--unit')
const chosen = process.argv.slice(2).filter((arg) => !arg.startsWith('-'))
if (unit && chosen.length > 0) fail('npm run test:unit runs the whole unit tier; to run chosen files: npm test -- <file>...')
for (const file of chosen) {
  if (!isFile(path.resolve(projectRoot, file))) fail(`There is no test file at ${file}.`)
}
const all = chosen.length > 0 ? chosen : testFiles(projectRoot).sort()
const files = unit ? all.filter((file) => isUnitTier(projectRoot, file)) : all
const toolEnv: Record<string, string> = {}
for (const tool of [CHROMIUM, NGINX, REDIS]) {
  const users = files.filter((file) => needsOf(projectRoot, file).includes(tool.need))
  if (users.length > 0) toolEnv[tool.variable] = ensureTool(tool, users)
}
const env = { ...process.env, ...toolEnv }
const jobs = jobCount()

/** `TEST_JOBS` if set; else one step per core, plus one for the time steps spend waiting (a browser, a timer, a server). */
function jobCount(): number {
  const configured = process.env.TEST_JOBS
  if (configured === undefined || configured === '') return availableParallelism() + 1
  if (!/^[1-9]\d*$/.test(configured)) fail(`TEST_JOBS is set to "${configured}": it is how many steps run at once, a whole number from 1.`)
  return Number(configured)
}

const { buildPath } = await import('../test/helpers/build.js')
/** The builds the files use that are not kept from an earlier run: steps that come first. */
const missingBuilds = [...new Set(files.flatMap((file) => buildsOf(projectRoot, file)))].filter((kind) => !isDirectory(buildPath(kind)))
const buildStep = (kind: BuildKind): Step => ({
  name: `build ${kind}`,
  kind: 'build',
  // `dist` copies the client of `deployed`.
  after: kind === 'dist' && missingBuilds.includes('deployed') ? ['build deployed'] : [],
  estimate: Number.POSITIVE_INFINITY,
  start: () => start(process.execPath, [path.join(projectRoot, 'test/helpers/build-process.mjs'), kind], { stdout: 'pipe', stderr: 'pipe' }),
})
const buildSteps = missingBuilds.map(buildStep)

if (tapOptions.length > 0) {
  // A tap option (`--grep`, `--bail`): the builds, then tap's runner, found the way Node
  // finds the package (a copy of the project under test/.build/ uses the checkout's node_modules).
  const built = await runSteps(buildSteps, { jobs, timeoutSeconds, stopping: () => stopping !== undefined })
  if (stopping) process.exit(128 + osConstants.signals[stopping])
  if (built.some((outcome) => outcome.why)) fail('A build for the tests failed (above).')
  const tapPackage = createRequire(import.meta.url).resolve('tap/package.json')
  const tapBin = (JSON.parse(readFileSync(tapPackage, 'utf8')) as { bin: { tap: string } }).bin.tap
  const tapJobs = tapOptions.some((option) => /^(-j|--jobs)/.test(option)) ? [] : [`--jobs=${jobs}`]
  const code = await exitOf(start(process.execPath, [path.join(path.dirname(tapPackage), tapBin), ...tapJobs, ...tapOptions, ...files], { env }))
  process.exit(code)
}

const recorded = readRecordedTimes()
const transpiled = await transpileForTests(projectRoot)
/** The file transpiled (scripts/test-transpile.ts); one outside the folders it transpiles, through tsx as tap's runner starts it. */
function testCommand(file: string): string[] {
  const js = transpiledPath(transpiled, path.relative(projectRoot, path.resolve(projectRoot, file)))
  return js ? ['--enable-source-maps', js] : [...(tapConfig['node-arg'] ?? []), file]
}
const testStep = (file: string): Step => ({
  name: file,
  kind: 'test',
  after: buildsOf(projectRoot, file)
    .filter((kind) => missingBuilds.includes(kind))
    .map((kind) => `build ${kind}`),
  estimate: recorded[file] ?? expectedSeconds(projectRoot, file),
  start: () =>
    start(process.execPath, testCommand(file), {
      env: { ...env, TAP_TIMEOUT: String(timeoutSeconds) },
      stdout: 'pipe',
      stderr: 'pipe',
    }),
})
// The whole suite checks the types and the lint (ESLint with the import rules, then
// Prettier's check) beside the tests, as CI runs it; chosen files and the unit tier do not.
const checkStep = (script: string): Step => ({
  name: script,
  kind: 'check',
  after: [],
  // Gates nothing: ordered among the files by its length (about 25 s each on a quiet machine).
  estimate: 25,
  start: () => start('npm', ['run', '--silent', script], { stdout: 'pipe', stderr: 'pipe' }),
})
const checks = chosen.length === 0 && !unit ? [checkStep('typecheck'), checkStep('lint')] : []

const outcomes = await runSteps([...checks, ...buildSteps, ...files.map(testStep)], {
  jobs,
  timeoutSeconds,
  stopping: () => stopping !== undefined,
})
if (stopping) process.exit(128 + osConstants.signals[stopping])
recordTimes(outcomes)

const failedSteps = outcomes.filter((outcome) => outcome.why)
const tests = outcomes.filter((outcome) => outcome.kind === 'test')
const slowest = [...tests].sort((a, b) => b.seconds - a.seconds).slice(0, 10)
if (tests.length > 1)
  console.log(`\nslowest files:\n${slowest.map(({ name, seconds }) => `  ${seconds.toFixed(1).padStart(6)} s  ${name}`).join('\n')}`)
if (failedSteps.length > 0 && outcomes.length > 1) {
  console.log(`\nfailed:\n${failedSteps.map(({ name, why }) => `  ${name}: ${why}`).join('\n')}`)
}
const passed = tests.reduce((sum, outcome) => sum + outcome.passed, 0)
const failed = tests.reduce((sum, outcome) => sum + outcome.failed, 0)
console.log(`\n${tests.length} files in ${((performance.now() - began) / 1000).toFixed(1)} s, ${jobs} at a time`)
// A file can fail outside any assertion (a crash, a plan mismatch): never print
// "0 failed" for a run that failed.
console.log(`assertions: ${passed} passed, ${Math.max(failed, failedSteps.length > 0 ? 1 : 0)} failed`)
process.exit(failedSteps.length > 0 ? 1 : 0)
