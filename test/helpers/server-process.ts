/**
 * The production server as an operator runs it: the built bundle (dist/server/main.js)
 * started with node, configured by environment variables, stopped by signals. The
 * bundle is the tests' `dist` build (test/helpers/build.ts), kept under .cache/ (inside
 * the project, so it resolves node_modules like a deploy does).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import { projectRoot, testBuild } from './build.js'

type Test = { teardown(fn: () => unknown): void }

/** Something that prints: a child process and everything it printed so far. */
export interface PrintingProcess {
  readonly child: ChildProcess
  output(): string
}

/** The built server; its output is JSON log lines, or a configuration error. */
export interface ServerProcess extends PrintingProcess {
  /** The JSON log lines so far. */
  logLines(): Array<Record<string, any>>
}

/** The dist folder (client and server) as `npm run build` makes it; tests only read it. */
export function buildDist(_t: Test): Promise<string> {
  return testBuild('dist')
}

export function startServer(dist: string, env: Record<string, string>): ServerProcess {
  const child = spawn(process.execPath, [path.join(dist, 'server/main.js')], {
    cwd: projectRoot,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.on('data', (chunk) => (output += chunk))
  child.stderr!.on('data', (chunk) => (output += chunk))
  // Parsed once each, as they are asked for: tests poll the log every few milliseconds
  // while a server logs thousands of lines, and parsing all of them each time cost the
  // suite seconds of CPU. Only whole lines: the last may still be arriving.
  const lines: Array<Record<string, any>> = []
  let parsedTo = 0
  return {
    child,
    output: () => output,
    logLines: () => {
      const end = output.lastIndexOf('\n') + 1
      // Parsed before any is kept: a line that is not JSON throws at every call, as it did.
      const arrived = output
        .slice(parsedTo, end)
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, any>)
      lines.push(...arrived)
      parsedTo = end
      return [...lines]
    },
  }
}

/**
 * Resolves with the first match of `pattern` in what the process printed (from offset
 * `from` on), as soon as it appears; rejects if the process exits first, or after
 * `timeoutMs`, with the output in the message.
 */
export function waitForOutput(
  process: PrintingProcess,
  pattern: RegExp,
  { from = 0, timeoutMs = 15_000 }: { from?: number; timeoutMs?: number } = {},
): Promise<RegExpExecArray> {
  const { child } = process
  return new Promise((resolve, reject) => {
    const check = () => {
      const found = pattern.exec(process.output().slice(from))
      if (found) return finish(() => resolve(found))
      if (child.exitCode !== null || child.signalCode !== null) {
        finish(() => reject(new Error(`the process exited before printing ${pattern}:\n${process.output()}`)))
      }
    }
    const timer = setTimeout(() => finish(() => reject(new Error(`no ${pattern} in the output:\n${process.output()}`))), timeoutMs)
    const finish = (settle: () => void) => {
      clearTimeout(timer)
      child.stdout!.off('data', check)
      child.stderr!.off('data', check)
      child.off('exit', check)
      settle()
    }
    // After the process's own listeners, which append the chunk to its output.
    child.stdout!.on('data', check)
    child.stderr!.on('data', check)
    child.on('exit', check)
    check()
  })
}

/**
 * Waits until the server logs the address it listens on; returns its origin. A minute: a
 * start that loads @sentry/node took over 15 s on a machine at a load average of 27, and
 * a server that never listens exits or fails the test all the same.
 */
export async function listeningOrigin(server: ServerProcess, timeoutMs = 60_000): Promise<string> {
  const [, origin] = await waitForOutput(server, /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/, { timeoutMs })
  return origin!
}
