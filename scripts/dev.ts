/**
 * `npm run dev`: runs the development server (scripts/dev-server.ts) and starts it
 * again whenever the server's own code changes (server/, shared/, vite.config.ts):
 * a fresh process is the one reliable way to reload Fastify plugins and everything
 * they imported. Browser code (client/) never restarts it: Vite hot-swaps the edit in
 * the browser (React Fast Refresh keeps component state) and its module runner
 * renders the edited page on the server's next request.
 *
 * If the server exits on its own (a syntax error, a bad config), the next edit starts
 * it again. Ctrl-C or SIGTERM stops both.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { watch, type FSWatcher } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
/** Edits close together (a save that writes several files) restart once. */
const SETTLE_MS = 100

let server: ChildProcess | undefined
let stopping = false

function start(): void {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/dev-server.ts')], {
    cwd: root,
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, NODE_ENV: 'development' },
  })
  server = child
  child.on('message', (message) => {
    if ((message as { ready?: boolean }).ready && restartStartedAt !== undefined) {
      console.log(`[dev] restarted in ${Math.round(performance.now() - restartStartedAt)} ms`)
      restartStartedAt = undefined
    }
  })
  child.on('exit', (code, signal) => {
    if (server === child) server = undefined
    // A start that never became ready: the next restart is timed from its own edit.
    if (!restarting) restartStartedAt = undefined
    if (!stopping && !restarting && code !== 0) {
      console.error(`[dev] the server exited (${signal ?? `code ${code}`}); waiting for an edit to start it again`)
    }
  })
}

async function stopServer(): Promise<void> {
  const child = server
  if (!child || child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  child.kill('SIGTERM')
  await exited
}

let restarting = false
/** When the edit that is restarting the server was noticed. */
let restartStartedAt: number | undefined
let pending: string | undefined
let timer: NodeJS.Timeout | undefined

function scheduleRestart(file: string): void {
  pending = file
  restartStartedAt ??= performance.now()
  clearTimeout(timer)
  timer = setTimeout(() => void restart(), SETTLE_MS)
}

async function restart(): Promise<void> {
  if (restarting || stopping) return // the running restart picks up `pending` when done
  restarting = true
  while (pending !== undefined && !stopping) {
    console.log(`[dev] ${pending} changed: restarting the server`)
    pending = undefined
    await stopServer()
    if (!stopping) start()
  }
  restarting = false
}

function watchSources(): FSWatcher[] {
  const onChange = (base: string) => (_event: string, name: string | Buffer | null) => {
    const file = path.join(base, String(name ?? ''))
    if (/\.(ts|tsx|json)$/.test(file)) scheduleRestart(file)
  }
  return [
    watch(path.join(root, 'server'), { recursive: true }, onChange('server')),
    watch(path.join(root, 'shared'), { recursive: true }, onChange('shared')),
    // The folder, not the file: an editor that saves by writing a new file and renaming
    // it over the old one leaves a watcher of the file on a file that is gone.
    watch(root, (event, name) => {
      if (String(name) === 'vite.config.ts') onChange('')(event, name)
    }),
  ]
}

const watchers = watchSources()
start()

async function shutDown(): Promise<void> {
  if (stopping) return
  stopping = true
  clearTimeout(timer)
  for (const watcher of watchers) watcher.close()
  await stopServer()
  process.exit(0)
}
process.on('SIGINT', () => void shutDown())
process.on('SIGTERM', () => void shutDown())
