/**
 * `npm test`: the type check, then every test file with tap. `npm test -- <file>...`:
 * only those files, without the type check (seconds, for the edit-test loop).
 *
 * A test file that needs Chromium, nginx or Redis says so on its first line
 * (`// test-needs: chromium, nginx, redis`); only then is the tool looked for: CHROMIUM_PATH /
 * NGINX_PATH / REDIS_SERVER_PATH if set, else the usual names on PATH; none found, as root, Debian's
 * package is installed (saying what and why first), otherwise the run stops and says
 * how. tap is given the files by name because TypeScript runs through tsx, not tap's
 * own plugin, and tap only globs for the extensions its plugins announce.
 *
 * A run of more than one file that uses them builds what the tests share first, once
 * (test/helpers/build.ts, `prebuildForTests`), and removes it at the end.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { accessSync, constants, readFileSync, rmSync, statSync } from 'node:fs'
import { constants as osConstants } from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { needsOf, testFiles, usesSharedBuilds } from './test-files.js'
import { newBuildDir, PREBUILT_DIR_VARIABLE, prebuildForTests } from '../test/helpers/build.js'

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

async function prebuild(dir: string): Promise<void> {
  const started = performance.now()
  try {
    await prebuildForTests(dir)
    console.log(`Built the client, the fixture client and the server for the tests in ${Math.round(performance.now() - started)} ms`)
  } catch (error) {
    fail(`The build the tests share failed: ${error instanceof Error ? error.message : String(error)}`)
  }
}

function withoutPrebuilt(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { [PREBUILT_DIR_VARIABLE]: _inherited, ...rest } = env
  return rest
}

function fail(message: string): never {
  console.error(message)
  process.exit(1)
}

// Arguments starting with `-` are tap's own options (`--grep`, `--bail`), passed on.
const tapOptions = process.argv.slice(2).filter((arg) => arg.startsWith('-'))
const chosen = process.argv.slice(2).filter((arg) => !arg.startsWith('-'))
if (chosen.length === 0) {
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
const files = chosen.length > 0 ? chosen : testFiles(projectRoot).sort()
const toolEnv: Record<string, string> = {}
for (const tool of [CHROMIUM, NGINX, REDIS]) {
  const users = files.filter((file) => needsOf(projectRoot, file).includes(tool.need))
  if (users.length > 0) toolEnv[tool.variable] = ensureTool(tool, users)
}
// More than one file using them: the builds the tests share (the production client and
// server, the fixture client) are made once here instead of once per test process (each
// takes 15 s or more on two cores; most test files use one). The folder is named to the
// tests by a variable, set for this run only (a run started from a test gets its own).
const builders = files.filter((file) => usesSharedBuilds(projectRoot, file))
const prebuilt = builders.length > 1 ? newBuildDir('prebuilt') : undefined
// Ctrl-C or a CI's SIGTERM: while building, the half-made builds are removed and the
// run ends; once tap runs, tap stops its test processes and closes, and the builds are
// removed when it does (below). Either way nothing is left in test/.build/.
let running: ChildProcess | undefined
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (running) return void running.kill(signal)
    if (prebuilt) rmSync(prebuilt, { recursive: true, force: true })
    process.exit(128 + osConstants.signals[signal])
  })
}
if (prebuilt) await prebuild(prebuilt)
// tap's command, found the way Node finds the package (a copy of the project under
// test/.build/ uses the checkout's node_modules).
const tapPackage = createRequire(import.meta.url).resolve('tap/package.json')
const tapBin = (JSON.parse(readFileSync(tapPackage, 'utf8')) as { bin: { tap: string } }).bin.tap
const tap = spawn(process.execPath, [path.join(path.dirname(tapPackage), tapBin), ...tapOptions, ...files], {
  cwd: projectRoot,
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...withoutPrebuilt(process.env), ...toolEnv, ...(prebuilt ? { [PREBUILT_DIR_VARIABLE]: prebuilt } : {}) },
})
running = tap
// Pass tap's report through, counting its assertion lines (`ok N - ...` without a
// `# time=`, which only ends a subtest or a file) for the summary.
let passed = 0
let failed = 0
let partial = ''
tap.stdout.on('data', (chunk: Buffer) => {
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
tap.on('close', (code) => {
  if (prebuilt) rmSync(prebuilt, { recursive: true, force: true })
  // A file can fail outside any assertion (a crash, a plan mismatch): never print
  // "0 failed" for a run that failed.
  console.log(`\nassertions: ${passed} passed, ${Math.max(failed, code === 0 ? 0 : 1)} failed`)
  process.exit(code ?? 1)
})
