/** The load generator (autocannon, on CPU 1) and the bytes a page sends. */
import { spawn } from 'node:child_process'
import { request } from 'node:http'
import path from 'node:path'
import { projectRoot, TASKSET } from './processes.js'

export const DURATION_S = Number(process.env.BENCH_SECONDS ?? 8)

export interface Load {
  readonly requestsPerSecond: number
  /** Answered in the whole load. */
  readonly requests: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly errors: number
}

/** autocannon's CLI on CPU 1, so the load generator never competes with the server. */
export async function load(
  url: string,
  connections: number,
  post?: { body: string; contentType: string },
  rate?: number,
  headers: readonly string[] = [],
  seconds = DURATION_S,
): Promise<Load> {
  const args = [path.join(projectRoot, 'node_modules/autocannon/autocannon.js'), '-j', '-c', String(connections), '-d', String(seconds)]
  if (post) args.push('-m', 'POST', '-b', post.body, '-H', `content-type=${post.contentType}`)
  for (const header of headers) args.push('-H', header)
  if (rate) args.push('-R', String(rate))
  const command = TASKSET ? [TASKSET, '-c', '1', process.execPath, ...args, url] : [process.execPath, ...args, url]
  // Not spawnSync: this process must keep reading the servers' logs meanwhile, or their
  // writes back up in the servers' memory (the RSS figures would count a full pipe).
  const child = spawn(command[0]!, command.slice(1), { cwd: projectRoot, stdio: ['ignore', 'pipe', 'inherit'] })
  let stdout = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  const code = await new Promise<number | null>((resolve, reject) => child.once('error', reject).once('close', resolve))
  if (code !== 0) throw new Error(`autocannon exited with ${code} for ${url}`)
  const result = JSON.parse(stdout) as {
    requests: { average: number; total: number }
    latency: { p50: number; p99: number }
    errors: number
    timeouts: number
    non2xx: number
  }
  return {
    requestsPerSecond: Math.round(result.requests.average),
    requests: result.requests.total,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  }
}

/** What a client taking brotli sends: the header for load(). */
export const COMPRESSED = ['accept-encoding=br, gzip']

/**
 * Load not counted, before the first round: a server's first seconds run its code
 * before V8 has optimized it (the render limit warms up the same way, with renders of
 * its own), and a first round on a cold server measured 10-20% less than the second.
 */
const WARM_UP_S = 3
export async function warmUp(urls: readonly string[], headers: readonly string[] = []): Promise<void> {
  for (const url of urls) await load(url, 50, undefined, undefined, headers, WARM_UP_S)
}

/** The body's bytes as they come over the wire for `Accept-Encoding: <encoding>`. */
export function sentBytes(url: string, encoding: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request(url, { headers: { 'accept-encoding': encoding } }, (res) => {
      let bytes = 0
      res.on('data', (chunk: Buffer) => (bytes += chunk.length))
      res.on('end', () => resolve(bytes))
      res.on('error', reject)
    })
      .on('error', reject)
      .end()
  })
}
