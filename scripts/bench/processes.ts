/**
 * The bench's processes: servers pinned to CPU 0 (where the server under measure runs),
 * their origins read from their first output line, their RSS read from /proc.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
export const TASKSET = ['/usr/bin/taskset', '/bin/taskset'].find((file) => existsSync(file))
if (!TASKSET) console.warn('taskset not found: server and load generator will share the cores')

/** Runs a command on CPU 0 (where the server runs), printing its first output line. */
export function onCpu0(args: string[], env: Record<string, string> = {}, cwd = projectRoot): ChildProcess {
  const command = TASKSET ? [TASKSET, '-c', '0', ...args] : args
  return spawn(command[0]!, command.slice(1), { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
}

/**
 * Resolves with the first match of `pattern` in the child's output, then stops reading
 * it here (the caller resumes the stream to discard the rest: a server logs every
 * request, and keeping or scanning that would slow this process until the server's
 * log writes block on a full pipe).
 */
export function firstLine(child: ChildProcess, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let output = ''
    const onData = (chunk: Buffer) => {
      output += chunk
      const found = pattern.exec(output)
      if (!found) return
      child.stdout!.off('data', onData)
      child.off('exit', onExit)
      resolve(found)
    }
    const onExit = (code: number | null) => reject(new Error(`${child.spawnargs.join(' ')} exited with ${code}: ${output}`))
    child.stdout!.on('data', onData)
    child.once('exit', onExit)
  })
}

/** The origin a helper of scripts/bench/ prints first; the rest of its output is discarded (firstLine). */
export async function originOf(child: ChildProcess): Promise<string> {
  const [, origin] = await firstLine(child, /(http:\/\/127\.0\.0\.1:\d+)/)
  child.stdout!.resume()
  return origin!
}

/** The production server (`<root>/dist/server/main.js`) on CPU 0, on a free port. */
export async function startApp(env: Record<string, string> = {}, root = projectRoot) {
  // Capacity is measured: one load generator is one client address, so no rate limits.
  const limitsOff = { RATE_LIMIT_FORMS: 'off', RATE_LIMIT_MONITORING: 'off' }
  const child = onCpu0(
    [process.execPath, 'dist/server/main.js'],
    { PORT: '0', HOST: '127.0.0.1', SHUTDOWN_DELAY_MS: '0', ...limitsOff, ...env },
    root,
  )
  const [, origin] = await firstLine(child, /Server listening at (http:\/\/127\.0\.0\.1:\d+)/)
  child.stdout!.resume()
  return { child, origin: origin! }
}

export async function stop(child: ChildProcess) {
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
}

export function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))
  return Math.round(Number(/\d+/.exec(line ?? '')?.[0] ?? 0) / 1024)
}
