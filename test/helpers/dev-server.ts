/**
 * `npm run dev` as a developer runs it, on a copy of the project (under test/.build/,
 * so node_modules resolve as in the checkout) that tests may edit freely. The
 * supervisor runs in its own process group: stopping the test stops the supervisor,
 * the server it started and Vite, whatever state they are in.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import type tap from 'tap'
import type { Page } from 'playwright-core'
import { once } from 'node:events'
import { tmpdir } from 'node:os'
import { copyProject } from './project-copy.js'
import { freePort } from './ports.js'
import { waitForOutput } from './server-process.js'

type Test = { teardown(fn: () => unknown): void }

export interface DevServer {
  readonly origin: string
  /** The copy of the project it serves. */
  readonly dir: string
  /** Everything the supervisor and its server printed so far. */
  output(): string
  /** Resolves when the output, from `from` on, matches `pattern`. */
  waitForOutput(pattern: RegExp, from?: number, timeoutMs?: number): Promise<void>
  /** Rewrites `file` (relative to the copy) with `edit` applied to its text. */
  edit(file: string, edit: (text: string) => string): void
}

/**
 * What `npm run dev` is started with: the machine's PATH and the run's temporary folder
 * (npm test's `.cache/tmp`, where tsx keeps what it compiled), nothing else of the test's
 * environment, then the port and `env`.
 */
export function devServerEnv(port: number | string, env: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '', TMPDIR: tmpdir(), HOST: '127.0.0.1', PORT: String(port), ...env }
}

export async function startDevServer(t: Test, env: Record<string, string> = {}): Promise<DevServer> {
  // Removed after the processes are stopped (below), not while they still watch it.
  let removeCopy: () => unknown = () => {}
  const copy = copyProject({ teardown: (remove) => (removeCopy = remove) }, 'dev')
  const { dir } = copy
  const port = await freePort()
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'scripts/dev.ts'], {
    cwd: dir,
    env: devServerEnv(port, { LOG_LEVEL: 'info', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  let output = ''
  child.stdout!.on('data', (chunk) => (output += chunk))
  child.stderr!.on('data', (chunk) => (output += chunk))
  const printing = { child, output: () => output }

  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit')
      process.kill(-child.pid!, 'SIGTERM')
      const killer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 10_000)
      await exited
      clearTimeout(killer)
    }
    // Anything of the group still alive (the supervisor waits for its server, so nothing should be).
    try {
      process.kill(-child.pid!, 'SIGKILL')
    } catch {}
    removeCopy()
  })

  const server: DevServer = {
    origin: `http://127.0.0.1:${port}`,
    dir,
    output: () => output,
    async waitForOutput(pattern, from = 0, timeoutMs = 60_000) {
      await waitForOutput(printing, pattern, { from, timeoutMs })
    },
    edit: copy.edit,
  }
  await server.waitForOutput(/Development server ready at /)
  return server
}

/** A GET to the development server, its body read whole. */
export async function devGet(dev: DevServer, path: string) {
  const response = await fetch(dev.origin + path)
  return { status: response.status, headers: response.headers, body: await response.text() }
}

/**
 * Waits until `path` answers `status`: an edit reaches the server through Vite's file
 * watcher. A pause between tries: each is a page rendered by the server.
 */
export async function untilStatus(dev: DevServer, path: string, status: number): Promise<string> {
  const deadline = Date.now() + 15_000
  for (;;) {
    const response = await fetch(dev.origin + path)
    const body = await response.text()
    if (response.status === status) return body
    if (Date.now() > deadline) throw new Error(`${path} still answers ${response.status}, not ${status}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** Applies an edit to the server's code and waits until the restarted server is ready. */
export async function editServerCode(dev: DevServer, file: string, edit: (text: string) => string) {
  const from = dev.output().length
  dev.edit(file, edit)
  await dev.waitForOutput(new RegExp(`${file.replace(/[.]/g, '\\.')} changed: restarting[^]*Development server ready at `), from)
}

/**
 * After an edit that reloads the tab: it reloaded by itself, once (`loads` documents in all),
 * and an edit of `file`'s `<h1>heading</h1>` then shows by Fast Refresh, with no load more.
 */
export async function assertReloadedThenHotUpdated(
  t: Pick<typeof tap, 'equal'>,
  dev: DevServer,
  page: Page,
  documentRequests: readonly string[],
  loads: number,
  { file, heading }: { readonly file: string; readonly heading: string },
): Promise<void> {
  t.equal(documentRequests.length, loads, 'the tab reloaded by itself, once')
  dev.edit(file, (text) => text.replace(`<h1>${heading}</h1>`, `<h1>${heading} (edited)</h1>`))
  await page.getByRole('heading', { name: `${heading} (edited)` }).waitFor()
  t.equal(documentRequests.length, loads, 'and Fast Refresh works in it again')
}
