/**
 * `npm run dev`: runs the development server (scripts/dev-server.ts) and starts it
 * again whenever the server's own code changes (server/, shared/, vite.config.ts):
 * a fresh process is the one reliable way to reload Fastify plugins and everything
 * they imported. Browser code (client/) never restarts a running server: Vite
 * hot-swaps the edit in the browser (React Fast Refresh keeps component state) and its
 * module runner renders the edited page on the server's next request.
 *
 * If the server exits on its own (a syntax error, a module that throws as it loads), the
 * next edit starts it again, an edit of client/ included; meanwhile its port answers
 * with the error's page (scripts/dev-failure-server.ts), which reloads itself once the
 * server is back. A port already in use stops `npm run dev` at once, with the port
 * named: no edit would free it. Ctrl-C or SIGTERM stops both.
 *
 * With SESSION_SECRET unset, the server is given a secret made once and kept in
 * .cache/dev-session-secret (gitignored, readable by its owner alone), so that a restart
 * does not end every session: saving a server file does not sign you out.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, watch, writeFileSync, type FSWatcher } from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { EXIT_PORT_IN_USE, loadConfigOrExit, portInUseMessage } from '../server/framework/process.js'
import type { ServerError } from './dev-failure-page.js'
import { serveFailurePage, type FailurePage } from './dev-failure-server.js'
import { portIsFree } from './port-probe.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
/** Edits close together (a save that writes several files) restart once. */
const SETTLE_MS = 100

let server: ChildProcess | undefined
let stopping = false
/** The failure's page, while the server is down. */
let failurePage: Promise<FailurePage | undefined> | undefined

function start(): void {
  const reporter = pathToFileURL(path.join(root, 'scripts/dev-server-failure.ts')).href
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', reporter, path.join(root, 'scripts/dev-server.ts')], {
    cwd: root,
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, NODE_ENV: 'development', ...(sessionSecret ? { SESSION_SECRET: sessionSecret } : {}) },
  })
  server = child
  let wasReady = false
  let error: ServerError | undefined
  child.on('message', (message) => {
    const { ready, failed } = message as { ready?: boolean; failed?: ServerError }
    wasReady ||= ready === true
    error = failed ?? error
    if (ready && restartStartedAt !== undefined) {
      console.log(`[dev] restarted in ${Math.round(performance.now() - restartStartedAt)} ms`)
      restartStartedAt = undefined
    }
  })
  child.on('exit', (code, signal) => {
    if (server === child) server = undefined
    // A start that never became ready: the next restart is timed from its own edit.
    if (!restarting) restartStartedAt = undefined
    if (code === EXIT_PORT_IN_USE) {
      // Taken while the server restarted: the server has said which port.
      console.error('[dev] stopping: the port is in use')
      void shutDown(1)
    } else if (!stopping && !restarting && code !== 0) {
      console.error(`[dev] the server exited (${signal ?? `code ${code}`}); waiting for an edit to start it again`)
    }
  })
  // 'close', not 'exit': after the last message (the error) has arrived.
  child.on('close', (code, signal) => {
    if (stopping || restarting || server !== undefined || code === 0) return
    const page = serveFailurePage(root, { host, port }, { error, wasReady, exit: signal ?? `code ${code}` })
    failurePage = page
    void page.then((open) => open && console.error(`[dev] ${open.url} shows the error until then`))
  })
}

async function closeFailurePage(): Promise<void> {
  const page = failurePage
  failurePage = undefined
  await (await page)?.close()
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
    await closeFailurePage() // the port is the server's again
    if (!stopping) start()
  }
  restarting = false
}

const clientFolder = path.join(root, 'client') + path.sep

/**
 * client/ is Vite's to update in a running server. A server that is down is started
 * by a client edit too: it imports the client's layouts and pages at start, so a
 * syntax error there, found by a restart, stops it until that file is fixed.
 */
function restartsServer(file: string): boolean {
  return !file.startsWith(clientFolder) || (server === undefined && !restarting)
}

/** The source folders watched, each with its watcher and the inode it watches. */
const watchedFolders = new Map<string, { watcher: FSWatcher; inode: number }>()

/**
 * Restarts the server on an edit of a source file in `folder` or any folder under it
 * (created later too). One watcher per folder, not Node's recursive one: on Linux,
 * Node 20's recursive watcher reports nothing more about a file once it has been
 * replaced by a rename (how editors that save atomically, `sed -i` and `git checkout`
 * write it), so the next edits of that file restarted nothing. A folder's own watcher
 * names every file written into it, either way.
 */
function watchFolder(folder: string): void {
  const inode = statSync(folder, { throwIfNoEntry: false })?.ino
  const watched = watchedFolders.get(folder)
  if (inode === undefined || watched?.inode === inode) return
  watched?.watcher.close() // a folder removed, then made again under the same name
  try {
    const watcher = watch(folder, (_event, name) => {
      if (name === null) return
      const file = path.join(folder, String(name))
      if (statSync(file, { throwIfNoEntry: false })?.isDirectory()) watchFolder(file)
      else if (/\.(ts|tsx|json)$/.test(file) && restartsServer(file)) scheduleRestart(path.relative(root, file))
    })
    watcher.on('error', () => watcher.close())
    watchedFolders.set(folder, { watcher, inode })
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.isDirectory()) watchFolder(path.join(folder, entry.name))
    }
  } catch {
    // Removed meanwhile: nothing in it to watch.
  }
}

/** Where the development session secret is kept between runs. */
const SESSION_SECRET_FILE = '.cache/dev-session-secret'

/** The secret in SESSION_SECRET_FILE, made (once, readable by its owner alone) when there is none yet. */
function developmentSessionSecret(): string | undefined {
  const file = path.join(root, SESSION_SECRET_FILE)
  try {
    const kept = readFileSync(file, 'utf8').trim()
    if (kept.length >= 32) return kept
  } catch {
    // None yet.
  }
  try {
    mkdirSync(path.dirname(file), { recursive: true })
    const secret = randomBytes(32).toString('base64url')
    writeFileSync(file, `${secret}\n`, { mode: 0o600 })
    chmodSync(file, 0o600) // a file that was there (too short to be one) keeps its mode otherwise
    return secret
  } catch (error) {
    console.error(`[dev] no session secret could be kept in ${SESSION_SECRET_FILE} (${String(error)}): a restart ends every session`)
    return undefined
  }
}

// A bad variable stops here, before anything is started; the port too, before Vite
// spends seconds starting for a server that could not listen.
const { host, port, sessions } = loadConfigOrExit()
// Only the sealed cookie needs it: sessions kept in memory end with the process anyway.
const sessionSecret = !process.env.SESSION_SECRET && sessions.store.kind === 'cookie' ? developmentSessionSecret() : undefined
if (sessionSecret) console.log(`[dev] sessions are sealed with the secret kept in ${SESSION_SECRET_FILE}: a restart keeps you signed in`)
if (!(await portIsFree(host, port))) {
  console.error(`[dev] ${portInUseMessage(host, port)}`)
  process.exit(1)
}

watchFolder(path.join(root, 'server'))
watchFolder(path.join(root, 'shared'))
watchFolder(path.join(root, 'client'))
// The folder, not the file: an editor that saves by writing a new file and renaming
// it over the old one leaves a watcher of the file on a file that is gone.
const configWatcher = watch(root, (_event, name) => {
  if (String(name) === 'vite.config.ts') scheduleRestart('vite.config.ts')
})
start()

async function shutDown(code = 0): Promise<void> {
  if (stopping) return
  stopping = true
  clearTimeout(timer)
  configWatcher.close()
  for (const { watcher } of watchedFolders.values()) watcher.close()
  await stopServer()
  await closeFailurePage()
  process.exit(code)
}
process.on('SIGINT', () => void shutDown())
process.on('SIGTERM', () => void shutDown())
