/**
 * The production server as an operator runs it: the built bundle (dist/server/main.js)
 * started with node, configured by environment variables, stopped by signals. The
 * bundle is built once per test file into test/.build/ (inside the project, so it
 * resolves node_modules like a deploy does).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import path from 'node:path'
import { buildClient, buildServer } from '../../scripts/build.js'
import { projectRoot } from './build.js'

type Test = { teardown(fn: () => unknown): void }

export interface ServerProcess {
  readonly child: ChildProcess
  /** Everything it printed so far (JSON log lines, or a configuration error). */
  output(): string
  /** The JSON log lines so far. */
  logLines(): Array<Record<string, any>>
}

let built: Promise<string> | undefined

/** Builds client and server once for this test process; returns the dist folder. */
export function buildDist(t: Test): Promise<string> {
  built ??= (async () => {
    mkdirSync(path.join(projectRoot, 'test/.build'), { recursive: true })
    const dist = mkdtempSync(path.join(projectRoot, 'test/.build/dist-'))
    await buildClient({ entry: 'client/entry.tsx', pagesDir: 'client/pages', outDir: path.join(dist, 'client') })
    await buildServer(path.join(dist, 'server'))
    return dist
  })()
  t.teardown(async () => rmSync(await built!, { recursive: true, force: true }))
  return built
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
  return {
    child,
    output: () => output,
    logLines: () =>
      output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, any>),
  }
}

/** Waits until the server logs the address it listens on; returns its origin. */
export async function listeningOrigin(server: ServerProcess, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const found = /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/.exec(server.output())
    if (found) return found[1]!
    if (server.child.exitCode !== null) throw new Error(`server exited early:\n${server.output()}`)
    await new Promise<void>((resolve) => {
      const wake = () => {
        server.child.stdout!.off('data', wake)
        server.child.stderr!.off('data', wake)
        server.child.off('exit', wake)
        resolve()
      }
      server.child.stdout!.on('data', wake)
      server.child.stderr!.on('data', wake)
      server.child.on('exit', wake)
    })
  }
  throw new Error(`server did not start:\n${server.output()}`)
}
