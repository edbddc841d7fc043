/**
 * `npm test` after the type check: makes sure a Chromium is there for the browser
 * tests, then runs every test file with tap.
 *
 * Chromium: CHROMIUM_PATH if set, else the first of the usual names on PATH. None
 * found: as root, install Debian's `chromium` package; otherwise stop and say how.
 * Test files: every `test/**\/*.test.ts`, or the files given as arguments
 * (`npm test -- test/shared/digest.test.ts`). tap is given the files by name because
 * TypeScript runs through tsx, not tap's own plugin, and tap only globs for the
 * extensions its plugins announce.
 */
import { spawn, spawnSync } from 'node:child_process'
import { accessSync, constants, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const CHROMIUM_NAMES = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome']

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK)
    return statSync(file).isFile()
  } catch {
    return false
  }
}

function findOnPath(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    for (const name of CHROMIUM_NAMES) {
      const candidate = path.join(dir, name)
      if (isExecutable(candidate)) return candidate
    }
  }
  return undefined
}

function ensureChromium(): string {
  const configured = process.env.CHROMIUM_PATH
  if (configured) {
    if (isExecutable(configured)) return configured
    fail(`CHROMIUM_PATH is set to "${configured}", which is not an executable file.`)
  }
  const found = findOnPath()
  if (found) return found
  if (process.getuid?.() !== 0) {
    fail(
      'The browser tests need Chromium, and none was found on PATH.\n' +
        'Install it with: sudo apt-get install -y chromium\n' +
        'or point CHROMIUM_PATH at a Chromium or Chrome executable.',
    )
  }
  console.log('Chromium not found: installing Debian\'s "chromium" package (running as root)...')
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', 'chromium']]) {
    const result = spawnSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
    if (result.status !== 0) fail(`"apt-get ${args.join(' ')}" failed; install Chromium by hand or set CHROMIUM_PATH.`)
  }
  return findOnPath() ?? fail('apt-get installed chromium, but no chromium executable is on PATH.')
}

function fail(message: string): never {
  console.error(message)
  process.exit(1)
}

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return entry.name.startsWith('.') || entry.name === 'fixtures' ? [] : testFiles(full)
    return entry.name.endsWith('.test.ts') ? [path.relative(projectRoot, full)] : []
  })
}

const chromium = ensureChromium()
const files = process.argv.length > 2 ? process.argv.slice(2) : testFiles(path.join(projectRoot, 'test')).sort()
const tap = spawn(path.join(projectRoot, 'node_modules/.bin/tap'), files, {
  cwd: projectRoot,
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, CHROMIUM_PATH: chromium },
})
// Pass tap's report through, keeping its tail for the summary line.
let tail = ''
tap.stdout.on('data', (chunk: Buffer) => {
  process.stdout.write(chunk)
  tail = (tail + chunk.toString()).slice(-4096)
})
tap.on('close', (code) => {
  // tap ends with `# { total: N, pass: P, fail: F, ... }`: say it the plain way too.
  const summary = /# \{ total: (\d+)(?:, pass: (\d+))?(?:, fail: (\d+))?/.exec(tail)
  // A file can fail outside any assertion (a crash, a plan mismatch): never print
  // "0 failed" for a run that failed.
  const failed = Math.max(Number(summary?.[3] ?? 0), code === 0 ? 0 : 1)
  console.log(`\nassertions: ${summary?.[2] ?? 0} passed, ${failed} failed`)
  process.exit(code ?? 1)
})
