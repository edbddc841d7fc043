/**
 * The tools test files declare they need (`// test-needs: chromium, nginx, redis` on
 * their first lines, scripts/test-files.ts), found for `npm test` (scripts/test.ts):
 * CHROMIUM_PATH / NGINX_PATH / REDIS_SERVER_PATH if set, else the usual names on PATH;
 * none found, as root, Debian's package is installed (saying what and why first),
 * otherwise the run stops and says how.
 */
import { spawnSync } from 'node:child_process'
import { accessSync, constants, statSync } from 'node:fs'
import path from 'node:path'

export interface Tool {
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

export const CHROMIUM: Tool = {
  need: 'chromium',
  purpose: 'The browser tests need Chromium',
  variable: 'CHROMIUM_PATH',
  // Chromium's headless shell first, as Playwright runs headless tests by default: the
  // same engine without the browser's windows and tabs, a page for a third of the CPU.
  // A full Chromium or Chrome runs the same tests (docs/decisions/054-headless-shell.md).
  names: ['chromium-headless-shell', 'chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome'],
  aptPackage: 'chromium-headless-shell',
}

export const NGINX: Tool = {
  need: 'nginx',
  purpose: 'The reverse-proxy tests need nginx',
  variable: 'NGINX_PATH',
  names: ['nginx'],
  aptPackage: 'nginx',
}

export const REDIS: Tool = {
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

/** The first of the tool's names found in any folder: the names are in order of preference. */
function findOnPath(tool: Tool): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/sbin', '/usr/local/sbin']
  for (const name of tool.names) {
    for (const dir of dirs) {
      const candidate = path.join(dir, name)
      if (isExecutable(candidate)) return candidate
    }
  }
  return undefined
}

let aptUpdated = false

/** The tool's path: the variable, else PATH, else (as root) Debian's package, else stop. `users`: the files that need it. */
export function ensureTool(tool: Tool, users: readonly string[]): string {
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

/** Stops `npm test` with a message, before any test ran. */
export function fail(message: string): never {
  console.error(message)
  process.exit(1)
}
