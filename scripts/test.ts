/**
 * `npm test`: the type check, the lint, then every test file, one at a time.
 * `npm test -- <file>...`: only those files, without the type check (seconds, for the
 * edit-test loop). `npm run test:unit` (`--unit`): the unit tier, no type check, one
 * file per core at once (docs/decisions/023-test-tiers.md; which files: `isUnitTier`
 * in scripts/test-files.ts).
 *
 * A test file that needs Chromium, nginx or Redis says so on its first line
 * (`// test-needs: chromium, nginx, redis`); only then is the tool looked for
 * (scripts/test-tools.ts).
 *
 * The builds the chosen files use (test/helpers/build.ts) are made first, those not kept
 * from an earlier run, side by side in processes of their own; the test processes
 * then only read them.
 *
 * Each file runs as the Node program it is, `node --import=tsx/esm <file>`, printing its
 * TAP (scripts/test-pool.ts), without tap's runner: the runner costs seconds of
 * start-up, more after each `npm ci` (which resets the Test class tap builds for this
 * project's plugins), and a second of CPU per file. A tap option (`--grep`, `--bail`)
 * runs the files with tap's runner, given them by name: TypeScript runs through tsx,
 * not tap's own plugin, and tap only globs for the extensions its plugins announce.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import { availableParallelism, constants as osConstants } from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { buildsOf, isUnitTier, needsOf, testFiles } from './test-files.js'
import { runTestFiles } from './test-pool.js'
import { CHROMIUM, ensureTool, fail, NGINX, REDIS } from './test-tools.js'
import type { BuildKind } from '../test/helpers/build.js'

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
function isFile(file: string): boolean {
  try {
    return statSync(file).isFile()
  } catch {
    return false
  }
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
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; stdout?: 'pipe' | 'inherit'; stderr?: 'pipe' | 'inherit' } = {},
): ChildProcess {
  const child = spawn(process.execPath, args, {
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
if (tapOptions.length > 0) {
  // A tap option (`--grep`, `--bail`): tap's runner, found the way Node finds the package
  // (a copy of the project under test/.build/ uses the checkout's node_modules).
  const tapPackage = createRequire(import.meta.url).resolve('tap/package.json')
  const tapBin = (JSON.parse(readFileSync(tapPackage, 'utf8')) as { bin: { tap: string } }).bin.tap
  // The unit tier one file per core at once, as without a tap option; the whole suite one at a time.
  const jobs = tapOptions.some((option) => /^(-j|--jobs)/.test(option)) ? [] : [`--jobs=${unit ? availableParallelism() : 1}`]
  const code = await exitOf(start([path.join(path.dirname(tapPackage), tapBin), ...jobs, ...tapOptions, ...files], { env }))
  process.exit(code)
}
// Otherwise each file is run as the Node program it is (scripts/test-pool.ts): the unit
// tier's files share no port, tool or build being made, one per core at once; the whole
// suite one at a time (the browser and timing tests, decision 022).
const { passed, failed, failedFiles } = await runTestFiles(files, {
  jobs: unit ? availableParallelism() : 1,
  timeoutSeconds: tapConfig.timeout ?? 30,
  nodeArgs: tapConfig['node-arg'] ?? [],
  start: (args) => start(args, { env: { ...env, TAP_TIMEOUT: String(tapConfig.timeout ?? 30) }, stdout: 'pipe', stderr: 'pipe' }),
  stopping: () => stopping !== undefined,
})
if (stopping) process.exit(128 + osConstants.signals[stopping])
if (failedFiles.length > 0 && files.length > 1) {
  console.log(`\nfailed files:\n${failedFiles.map(({ file, why }) => `  ${file}: ${why}`).join('\n')}`)
}
// A file can fail outside any assertion (a crash, a plan mismatch): never print
// "0 failed" for a run that failed.
console.log(`\nassertions: ${passed} passed, ${Math.max(failed, failedFiles.length > 0 ? 1 : 0)} failed`)
process.exit(failedFiles.length > 0 ? 1 : 0)
