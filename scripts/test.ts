/**
 * `npm test`: the type check, then every test file with tap. `npm test -- <file>...`:
 * only those files, without the type check (seconds, for the edit-test loop).
 * `npm run test:unit` (`--unit`): the unit tier, no type check, files in parallel
 * (docs/decisions/023-test-tiers.md; which files: `isUnitTier` in scripts/test-files.ts).
 *
 * A test file that needs Chromium, nginx or Redis says so on its first line
 * (`// test-needs: chromium, nginx, redis`); only then is the tool looked for: CHROMIUM_PATH /
 * NGINX_PATH / REDIS_SERVER_PATH if set, else the usual names on PATH; none found, as root, Debian's
 * package is installed (saying what and why first), otherwise the run stops and says
 * how. tap is given the files by name because TypeScript runs through tsx, not tap's
 * own plugin, and tap only globs for the extensions its plugins announce.
 *
 * The builds the chosen files use (test/helpers/build.ts) are made first, those not kept
 * from an earlier run, side by side in processes of their own; the test processes
 * then only read them.
 *
 * One file, with no tap option, runs as `node --import tsx <file>` prints it (TAP),
 * without tap's runner: the runner costs seconds of start-up, and more after each
 * `npm ci`, which resets the Test class tap builds for this project's plugins.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { accessSync, constants, readFileSync, statSync } from 'node:fs'
import { availableParallelism, constants as osConstants } from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { buildsOf, isUnitTier, needsOf, testFiles } from './test-files.js'
import type { BuildKind } from '../test/helpers/build.js'

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
interface Tool {
  /** The name a test file declares it by (`// test-needs: chromium`). */
  readonly need: string
  /** What the tests need it for, for the messages. */
  readonly purpose: string
  /** The variable that points at it, overriding the search. */
  readonly variable: string
  /** Executable names to look for on PATH (and in /usr/sbin). */
  readonly names: readonly string[]
  /** Debian's package for it. */
  readonly aptPackage: string
}

const CHROMIUM: Tool = {
  need: 'chromium',
  purpose: 'The browser tests need Chromium',
  variable: 'CHROMIUM_PATH',
  names: ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome'],
  aptPackage: 'chromium',
}

const NGINX: Tool = {
  need: 'nginx',
  purpose: 'The reverse-proxy tests need nginx',
  variable: 'NGINX_PATH',
  names: ['nginx'],
  aptPackage: 'nginx',
}

const REDIS: Tool = {
  need: 'redis',
  purpose: 'The shared rate-limit tests need a Redis server',
  variable: 'REDIS_SERVER_PATH',
  names: ['redis-server'],
  aptPackage: 'redis-server',
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK)
    return statSync(file).isFile()
  } catch {
    return false
  }
}

function findOnPath(tool: Tool): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/sbin', '/usr/local/sbin']
  for (const dir of dirs) {
    for (const name of tool.names) {
      const candidate = path.join(dir, name)
      if (isExecutable(candidate)) return candidate
    }
  }
  return undefined
}

let aptUpdated = false

/** The tool's path: the variable, else PATH, else (as root) Debian's package, else stop. `users`: the files that need it. */
function ensureTool(tool: Tool, users: readonly string[]): string {
  const configured = process.env[tool.variable]
  if (configured) {
    if (isExecutable(configured)) return configured
    fail(`${tool.variable} is set to "${configured}", which is not an executable file.`)
  }
  const found = findOnPath(tool)
  if (found) return found
  if (process.getuid?.() !== 0) {
    fail(
      `${tool.purpose}, and none was found on PATH.\n` +
        `Install it with: sudo apt-get install -y ${tool.aptPackage}\n` +
        `or point ${tool.variable} at the executable.`,
    )
  }
  const who = users.length === 1 ? users[0] : `${users[0]} and ${users.length - 1} more test files`
  console.log(
    `${tool.names[0]} not found, and ${who} need${users.length === 1 ? 's' : ''} it (${tool.purpose.toLowerCase()}): ` +
      `installing Debian's "${tool.aptPackage}" package with apt-get (running as root)...`,
  )
  const steps = [...(aptUpdated ? [] : [['update']]), ['install', '-y', '--no-install-recommends', tool.aptPackage]]
  for (const args of steps) {
    const result = spawnSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
    if (result.status !== 0) fail(`"apt-get ${args.join(' ')}" failed; install ${tool.aptPackage} by hand or set ${tool.variable}.`)
  }
  aptUpdated = true
  return findOnPath(tool) ?? fail(`apt-get installed ${tool.aptPackage}, but no ${tool.names[0]} executable is on PATH.`)
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile()
  } catch {
    return false
  }
}

function fail(message: string): never {
  console.error(message)
  process.exit(1)
}

/** The processes running now (builders, then tap or the test file): a signal to this one is passed on to them. */
const running = new Set<ChildProcess>()
let stopping: NodeJS.Signals | undefined
// Ctrl-C or a CI's SIGTERM: builders remove their half-made builds and exit, tap stops
// its test processes; this process ends when they have, as interrupted.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    stopping ??= signal
    if (running.size === 0) process.exit(128 + osConstants.signals[signal])
    for (const child of running) child.kill(signal)
  })
}

function start(args: readonly string[], options: { env?: NodeJS.ProcessEnv; stdout?: 'pipe' | 'inherit' } = {}): ChildProcess {
  const child = spawn(process.execPath, args, {
    cwd: projectRoot,
    stdio: ['ignore', options.stdout ?? 'inherit', 'inherit'],
    env: options.env ?? process.env,
  })
  running.add(child)
  child.once('close', () => running.delete(child))
  return child
}

const exitOf = (child: ChildProcess) =>
  new Promise<number>((resolve) => child.once('close', (code, signal) => resolve(code ?? 128 + (signal ? osConstants.signals[signal] : 1))))

/**
 * Makes the builds of `kinds` that are not kept from before, as many at once as there
 * are cores, each in a process of its own (test/helpers/build-process.mjs); `dist`
 * after `deployed`, whose client it copies.
 */
async function prepareBuilds(kinds: ReadonlySet<BuildKind>): Promise<void> {
  if (kinds.size === 0) return
  const { buildPath } = await import('../test/helpers/build.js')
  const missing = [...kinds].filter((kind) => !isDirectory(buildPath(kind)))
  if (missing.length === 0) return
  const started = performance.now()
  const waiting = [...missing].sort((a, b) => Number(a === 'dist') - Number(b === 'dist'))
  const building = new Set<BuildKind>()
  const failed: BuildKind[] = []
  await new Promise<void>((resolve) => {
    const next = () => {
      if (stopping) return void (building.size === 0 && resolve())
      while (waiting.length > 0 && building.size < availableParallelism()) {
        const kind = waiting[0]!
        if (kind === 'dist' && building.has('deployed')) break
        waiting.shift()
        building.add(kind)
        const builder = start([path.join(projectRoot, 'test/helpers/build-process.mjs'), kind])
        void exitOf(builder).then((code) => {
          building.delete(kind)
          if (code !== 0) failed.push(kind)
          next()
        })
      }
      if (building.size === 0) resolve()
    }
    next()
  })
  if (stopping) process.exit(128 + osConstants.signals[stopping])
  if (failed.length > 0) fail(`The ${failed.join(' and ')} build${failed.length > 1 ? 's' : ''} for the tests failed (above).`)
  console.log(`Built ${missing.join(', ')} for the tests in ${Math.round(performance.now() - started)} ms (kept for the next runs)`)
}

function isDirectory(dir: string): boolean {
  return statSync(dir, { throwIfNoEntry: false })?.isDirectory() ?? false
}

/** tap's configuration (package.json), which a file run without tap's runner is given too. */
const { tap: tapConfig } = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as {
  tap: { 'node-arg'?: string[]; timeout?: number }
}

// Arguments starting with `-` are tap's own options (`--grep`, `--bail`), passed on;
// `--unit` is this script's.
const unit = process.argv.includes('--unit')
const tapOptions = process.argv.slice(2).filter((arg) => arg.startsWith('-') && arg !== '--unit')
const chosen = process.argv.slice(2).filter((arg) => !arg.startsWith('-'))
if (unit && chosen.length > 0) fail('npm run test:unit runs the whole unit tier; to run chosen files: npm test -- <file>...')
if (chosen.length === 0 && !unit) {
  // The whole suite starts with the type check, as CI runs it.
  const typecheck = spawnSync('npm', ['run', 'typecheck'], { cwd: projectRoot, stdio: 'inherit' })
  if (typecheck.status !== 0) process.exit(typecheck.status ?? 1)
  // Then the lint (npm run lint: ESLint with the import rules, Prettier's check).
  const lint = spawnSync('npm', ['run', 'lint'], { cwd: projectRoot, stdio: 'inherit' })
  if (lint.status !== 0) process.exit(lint.status ?? 1)
}
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
await prepareBuilds(new Set(files.flatMap((file) => buildsOf(projectRoot, file))))

const env = { ...process.env, ...toolEnv }
let tests: ChildProcess
if (files.length === 1 && tapOptions.length === 0) {
  // tap's runner gives each file its timeout (`tap.timeout`); a file on its own reads it from TAP_TIMEOUT.
  const timeout = tapConfig.timeout ? { TAP_TIMEOUT: String(tapConfig.timeout) } : {}
  tests = start([...(tapConfig['node-arg'] ?? []), files[0]!], { env: { ...env, ...timeout }, stdout: 'pipe' })
} else {
  // tap's command, found the way Node finds the package (a copy of the project under
  // test/.build/ uses the checkout's node_modules).
  const tapPackage = createRequire(import.meta.url).resolve('tap/package.json')
  const tapBin = (JSON.parse(readFileSync(tapPackage, 'utf8')) as { bin: { tap: string } }).bin.tap
  // The unit tier's files share no port, tool or build being made: one per core at once.
  // The whole suite keeps tap's default (decision 022: the browser and timing tests).
  const jobs = unit && !tapOptions.some((option) => /^(-j|--jobs)/.test(option)) ? [`--jobs=${availableParallelism()}`] : []
  tests = start([path.join(path.dirname(tapPackage), tapBin), ...jobs, ...tapOptions, ...files], { env, stdout: 'pipe' })
}
// Pass the report through, counting its assertion lines (`ok N - ...` without a
// `# time=`, which only ends a subtest or a file) for the summary.
let passed = 0
let failed = 0
let partial = ''
tests.stdout!.on('data', (chunk: Buffer) => {
  process.stdout.write(chunk)
  const lines = (partial + chunk.toString()).split('\n')
  partial = lines.pop() ?? ''
  for (const line of lines) {
    const point = /^\s*(not )?ok \d+\b(.*)$/.exec(line)
    // Subtest and file lines carry their time; a TODO's failure is expected, not counted.
    if (!point || /# (time=|TODO)/.test(point[2]!)) continue
    if (point[1]) failed++
    else passed++
  }
})
const code = await exitOf(tests)
// A file can fail outside any assertion (a crash, a plan mismatch): never print
// "0 failed" for a run that failed.
console.log(`\nassertions: ${passed} passed, ${Math.max(failed, code === 0 ? 0 : 1)} failed`)
process.exit(code)
