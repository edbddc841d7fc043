/**
 * Real Redis (Debian's redis-server, found or installed by scripts/test.ts:
 * REDIS_SERVER_PATH) on a free 127.0.0.1 port, keeping nothing on disk; stopped at
 * teardown, or earlier by the test (`stop`) to see what the app does without it.
 */
import { spawn } from 'node:child_process'
import { createConnection } from 'node:net'
import { freePort } from './ports.js'

type Test = { teardown(fn: () => unknown): void }

export interface TestRedis {
  /** redis://127.0.0.1:<port>, for REDIS_URL. */
  readonly url: string
  readonly port: number
  /** Stops the server (SIGKILL: gone at once, as a crashed one would be); resolves once it has exited. */
  stop(): Promise<void>
  /** Freezes the server (SIGSTOP): connections stay open, nothing is answered, as with a hung Redis. */
  freeze(): void
}

/** Sends PING; true when the answer is PONG. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port })
    let answer = ''
    socket.setTimeout(1_000, () => socket.destroy())
    socket.on('connect', () => socket.write('PING\r\n'))
    socket.on('data', (chunk) => {
      answer += chunk.toString()
      if (answer.includes('\r\n')) socket.end()
    })
    socket.on('error', () => {})
    socket.on('close', () => resolve(answer.startsWith('+PONG')))
  })
}

/** `port`: a given one (to start Redis again where an app expects it), else a free one. */
export async function startRedis(t: Test, port?: number): Promise<TestRedis> {
  const executable = process.env.REDIS_SERVER_PATH || 'redis-server'
  port ??= await freePort()
  const child = spawn(executable, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await exited
  }
  t.teardown(stop)
  const deadline = Date.now() + 10_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited: ${output}`)
    if (await ping(port)) break
    if (Date.now() > deadline) throw new Error(`redis-server did not answer PING: ${output}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  const freeze = () => void child.kill('SIGSTOP')
  return { url: `redis://127.0.0.1:${port}`, port, stop, freeze }
}
