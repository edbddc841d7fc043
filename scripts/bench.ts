/**
 * `npm run bench`: the performance figures (docs/performance.md), on this machine, in one run.
 * - the production server pinned to CPU 0, autocannon (the load generator) on CPU 1
 *   (`taskset`, when present); Chromium, for the browser figures, on any core;
 * - /items/7 and /about at 50 and at 1 connection; the limits measured in the same run
 *   (React rendering the page to a string, Fastify answering a fixed page of the same
 *   size) and our /items/7 as a share of `1/(1/render + 1/http)`; the 50-connection
 *   figures and the limits alternate over BENCH_ROUNDS (3) rounds, medians reported,
 *   after 3 s of uncounted load on each URL (V8 optimizes a server's code as it runs);
 * - first-load JavaScript of /items/7 (gzip -9 of every script the page loads before
 *   it is interactive) and its HTML bytes, and both as sent to a client that accepts
 *   brotli (what the server's compression gives);
 * - /items/7 and /about throughput with compression (a client sending
 *   `Accept-Encoding: br, gzip`) as a share of a server with COMPRESSION=off, side by side;
 * - first contentful paint and hydration of /items/7 and /about (cold loads), and
 *   click-to-content (prefetched, cold), medians of 10;
 * - the monitoring tunnel: envelopes/s to a local sink (50 connections), and the p99
 *   it adds over posting to the sink directly, at a steady 300/s and at saturation;
 * - how cost grows with the page: /items/7 with 20, 200 and 2,000 rows (a bench-only
 *   server, scripts/bench/rows-server.ts), req/s, p99 and the time per row;
 * - the server's RSS after the load, and, on a fresh server, after 100,000 requests
 *   over 10,000 distinct URLs (5,000 item lists, 5,000 query strings of the static /about).
 * Prints a table and writes bench-results.json.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Agent, request } from 'node:http'
import { gzipSync } from 'node:zlib'
import { buildClient, buildServer, bundleForNode } from './build.js'
import { clickToContent, launchChromium, median } from './bench-navigation.js'

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const TASKSET = ['/usr/bin/taskset', '/bin/taskset'].find((file) => existsSync(file))
if (!TASKSET) console.warn('taskset not found: server and load generator will share the cores')
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 8)

/** Runs a command on CPU 0 (where the server runs), printing its first output line. */
function onCpu0(args: string[], env: Record<string, string> = {}): ChildProcess {
  const command = TASKSET ? [TASKSET, '-c', '0', ...args] : args
  return spawn(command[0]!, command.slice(1), { cwd: projectRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
}

/**
 * Resolves with the first match of `pattern` in the child's output, then stops reading
 * it here (the caller resumes the stream to discard the rest: a server logs every
 * request, and keeping or scanning that would slow this process until the server's
 * log writes block on a full pipe).
 */
function firstLine(child: ChildProcess, pattern: RegExp): Promise<RegExpExecArray> {
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

async function startApp(env: Record<string, string> = {}) {
  // Capacity is measured: one load generator is one client address, so no rate limits.
  const limitsOff = { RATE_LIMIT_FORMS: 'off', RATE_LIMIT_MONITORING: 'off' }
  const child = onCpu0([process.execPath, 'dist/server/main.js'], { PORT: '0', HOST: '127.0.0.1', SHUTDOWN_DELAY_MS: '0', ...limitsOff, ...env })
  const [, origin] = await firstLine(child, /Server listening at (http:\/\/127\.0\.0\.1:\d+)/)
  child.stdout!.resume()
  return { child, origin: origin! }
}

async function stop(child: ChildProcess) {
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
}

interface Load {
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly errors: number
}

/** autocannon's CLI on CPU 1, so the load generator never competes with the server. */
async function load(url: string, connections: number, post?: { body: string; contentType: string }, rate?: number, headers: readonly string[] = [], seconds = DURATION_S): Promise<Load> {
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
    requests: { average: number }
    latency: { p50: number; p99: number }
    errors: number
    timeouts: number
    non2xx: number
  }
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  }
}

/** The body's bytes as they come over the wire for `Accept-Encoding: <encoding>`. */
function sentBytes(url: string, encoding: string): Promise<number> {
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

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'))
  return Math.round(Number(/\d+/.exec(line ?? '')?.[0] ?? 0) / 1024)
}

// 1. Build, as a deploy would.
await buildClient({ entry: 'client/entry.tsx', pagesDir: 'client/pages', outDir: path.join(projectRoot, 'dist/client') })
await buildServer(path.join(projectRoot, 'dist/server'))

// 2. Our server.
const app = await startApp()
const html = await (await fetch(`${app.origin}/items/7`)).text()
const scripts = [...html.matchAll(/<(?:link rel="modulepreload"|script type="module") (?:href|src)="([^"]+)"/g)].map((m) => m[1]!)
let firstLoadJsGzip = 0
for (const file of new Set(scripts)) firstLoadJsGzip += gzipSync(Buffer.from(await (await fetch(app.origin + file)).arrayBuffer()), { level: 9 }).length
const htmlBytes = Buffer.byteLength(html)
// As sent to a browser that takes brotli (fetch would decode: count the bytes on the wire).
let firstLoadJsBrotliSent = 0
for (const file of new Set(scripts)) firstLoadJsBrotliSent += await sentBytes(app.origin + file, 'br')
const htmlBrotliSent = await sentBytes(`${app.origin}/items/7`, 'br')
/** A server with COMPRESSION=off beside ours, for the share compression keeps. */
const uncompressed = await startApp({ COMPRESSION: 'off' })

// Our server and the limits in alternating rounds: this machine's speed drifts by tens
// of percent within minutes, so each share compares figures taken side by side, and the
// medians of the rounds are reported.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const fixed = onCpu0([process.execPath, '--import', 'tsx', 'scripts/bench/fixed-page-server.ts'], { BYTES: String(htmlBytes) })
const [, fixedOrigin] = await firstLine(fixed, /(http:\/\/127\.0\.0\.1:\d+)/)
fixed.stdout!.resume()

/** React rendering the page to a string (read once, so joined into one) in a loop, on CPU 0 (our server idles meanwhile). */
async function renderLimit(): Promise<number> {
  const child = onCpu0([process.execPath, '--import', 'tsx', 'scripts/bench/render-limit.tsx'], { NODE_ENV: 'production' })
  const [, json] = await firstLine(child, /(\{.*\})/)
  return JSON.parse(json!).rendersPerSecond as number
}

const COMPRESSED = ['accept-encoding=br, gzip']

/**
 * Load not counted, before the first round: a server's first seconds run its code
 * before V8 has optimized it (the render limit warms up the same way, with renders of
 * its own), and a first round on a cold server measured 10-20% less than the second.
 */
const WARM_UP_S = 3
async function warmUp(urls: readonly string[], headers: readonly string[] = []): Promise<void> {
  for (const url of urls) await load(url, 50, undefined, undefined, headers, WARM_UP_S)
}
await warmUp([`${app.origin}/items/7`, `${app.origin}/about`, `${fixedOrigin}/`])
await warmUp([`${app.origin}/items/7`, `${app.origin}/about`, `${uncompressed.origin}/items/7`, `${uncompressed.origin}/about`], COMPRESSED)

interface Round {
  readonly items: Load
  readonly about: Load
  /** With compression (our server, a client taking brotli), and the same page from a COMPRESSION=off server. */
  readonly itemsCompressed: Load
  readonly itemsOff: Load
  readonly aboutCompressed: Load
  readonly aboutOff: Load
  readonly fixedPage: Load
  readonly rendersPerSecond: number
  readonly combinedLimit: number
}
const rounds: Round[] = []
for (let round = 0; round < ROUNDS; round++) {
  const rendersPerSecond = await renderLimit()
  const items = await load(`${app.origin}/items/7`, 50)
  const fixedPage = await load(`${fixedOrigin}/`, 50)
  const about = await load(`${app.origin}/about`, 50)
  const itemsCompressed = await load(`${app.origin}/items/7`, 50, undefined, undefined, COMPRESSED)
  const itemsOff = await load(`${uncompressed.origin}/items/7`, 50, undefined, undefined, COMPRESSED)
  const aboutCompressed = await load(`${app.origin}/about`, 50, undefined, undefined, COMPRESSED)
  const aboutOff = await load(`${uncompressed.origin}/about`, 50, undefined, undefined, COMPRESSED)
  rounds.push({
    items,
    about,
    fixedPage,
    itemsCompressed,
    itemsOff,
    aboutCompressed,
    aboutOff,
    rendersPerSecond,
    combinedLimit: 1 / (1 / rendersPerSecond + 1 / fixedPage.requestsPerSecond),
  })
}
fixed.kill('SIGKILL')
await stop(uncompressed.child)
const itemsCompressionShares = rounds.map((r) => r.itemsCompressed.requestsPerSecond / r.itemsOff.requestsPerSecond)
const aboutCompressionShares = rounds.map((r) => r.aboutCompressed.requestsPerSecond / r.aboutOff.requestsPerSecond)
/** The round with the median value of `figure`. */
const medianRound = (figure: (round: Round) => number) => [...rounds].sort((a, b) => figure(a) - figure(b))[Math.floor(rounds.length / 2)]!

const throughput: Record<string, Load> = {
  '/items/7 c=50': medianRound((r) => r.items.requestsPerSecond).items,
  '/items/7 c=1': await load(`${app.origin}/items/7`, 1),
  '/about c=50': medianRound((r) => r.about.requestsPerSecond).about,
  '/about c=1': await load(`${app.origin}/about`, 1),
}
const rendersPerSecond = median(rounds.map((r) => r.rendersPerSecond))
const fixedPagePerSecond = median(rounds.map((r) => r.fixedPage.requestsPerSecond))
const combinedLimit = median(rounds.map((r) => r.combinedLimit))
const itemsShares = rounds.map((r) => r.items.requestsPerSecond / r.combinedLimit)
const aboutShares = rounds.map((r) => r.about.requestsPerSecond / r.fixedPage.requestsPerSecond)
const rssAfterLoadMb = rssMb(app.child.pid!)

/**
 * 100,000 GETs over 10,000 distinct URLs, 50 at a time: half dynamic item lists, half
 * static pages with a query string each (every one a new entry of the static cache).
 */
async function manyUrls(origin: string, total: number): Promise<{ errors: number; seconds: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 50 })
  let next = 0
  let errors = 0
  const started = performance.now()
  const one = (i: number) =>
    new Promise<void>((resolve) => {
      const target = i % 2 === 0 ? `/items/${(i / 2) % 5000 + 1}` : `/about?v=${((i - 1) / 2) % 5000}`
      request(origin + target, { agent, headers: { 'accept-encoding': 'br, gzip' } }, (res) => {
        if (res.statusCode !== 200) errors++
        res.resume()
        res.on('end', resolve)
      })
        .on('error', () => {
          errors++
          resolve()
        })
        .end()
    })
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (next < total) await one(next++)
    }),
  )
  agent.destroy()
  return { errors, seconds: (performance.now() - started) / 1000 }
}
// On a server of its own: what 10,000 URLs leave behind, not the peak of the loads above
// (a process's RSS does not shrink back after a peak).
const manyUrlsApp = await startApp()
const manyUrlsRun = await manyUrls(manyUrlsApp.origin, 100_000)
const rssAfterManyUrlsMb = rssMb(manyUrlsApp.child.pid!)
await stop(manyUrlsApp.child)

// How cost grows with the page's size: the same page with 20, 200 and 2,000 rows.
// Bundled like the production server: through tsx, every request's import() of a page
// module would be a round trip to its loader thread.
await bundleForNode({ 'rows-server': 'scripts/bench/rows-server.ts' }, path.join(projectRoot, 'dist/bench'))
const rowsServer = onCpu0([process.execPath, 'dist/bench/rows-server.js'], { NODE_ENV: 'production' })
const [, rowsOrigin] = await firstLine(rowsServer, /(http:\/\/127\.0\.0\.1:\d+)/)
rowsServer.stdout!.resume()
const ROW_COUNTS = [20, 200, 2000] as const
const scaling: Record<string, Load> = {}
await warmUp(ROW_COUNTS.map((rows) => `${rowsOrigin}/items/7?rows=${rows}`))
for (const rows of ROW_COUNTS) scaling[String(rows)] = await load(`${rowsOrigin}/items/7?rows=${rows}`, 50)
await stop(rowsServer)
/** Milliseconds of server time per request, from the throughput at 50 connections. */
const msPerRequest = (rows: number) => 1000 / scaling[String(rows)]!.requestsPerSecond
/** Microseconds per row between two sizes: flat cost per row means these two are close. */
const usPerRow = (from: number, to: number) => ((msPerRequest(to) - msPerRequest(from)) * 1000) / (to - from)

// 3. Browser figures, against the same server.
const browser = await launchChromium()
/** A cold load (fresh context, empty cache): first contentful paint and hydration, ms from navigation start. */
async function firstLoad(path: string): Promise<{ fcp: number; hydrated: number }> {
  const context = await browser.newContext()
  const page = await context.newPage()
  const problems: string[] = []
  page.on('pageerror', (error) => problems.push(error.message))
  page.on('console', (message) => message.type() === 'error' && problems.push(message.text()))
  await page.goto(app.origin + path)
  await page
    .locator('html[data-hydrated="true"]')
    .waitFor({ state: 'attached' })
    .catch((error: unknown) => {
      throw new Error(`${path} did not become interactive: ${problems.join('; ') || 'no error in the page'}`, { cause: error })
    })
  await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0)
  const timings = await page.evaluate(() => ({
    fcp: performance.getEntriesByName('first-contentful-paint')[0]!.startTime,
    hydrated: performance.getEntriesByName('app:hydrated')[0]!.startTime,
  }))
  await context.close()
  return timings
}
const loads: Record<'/items/7' | '/about', { fcp: number[]; hydrated: number[] }> = {
  '/items/7': { fcp: [], hydrated: [] },
  '/about': { fcp: [], hydrated: [] },
}
const prefetched: number[] = []
const cold: number[] = []
for (let run = 0; run < 10; run++) {
  for (const [path, series] of Object.entries(loads)) {
    const { fcp, hydrated } = await firstLoad(path)
    series.fcp.push(fcp)
    series.hydrated.push(hydrated)
  }
  prefetched.push(await clickToContent(browser, app.origin, true))
  cold.push(await clickToContent(browser, app.origin, false))
}
await browser.close()
await stop(app.child)

// 4. The tunnel: envelopes through /monitoring to a local sink, against the sink directly.
const sink = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench/ingest-sink.ts'], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'inherit'] })
const [, sinkOrigin] = await firstLine(sink, /(http:\/\/127\.0\.0\.1:\d+)/)
sink.stdout!.resume()
const dsn = `http://publickey@${new URL(sinkOrigin!).host}/1`
// Once with @sentry/node loaded (SENTRY_DSN, as in production) and once with the tunnel
// alone (SENTRY_ALLOWED_DSNS only: no server SDK), to show what the SDK costs.
const tunnelAlone = await startApp({ SENTRY_ALLOWED_DSNS: dsn })
const envelope =
  JSON.stringify({ dsn, sent_at: new Date().toISOString() }) + '\n' + JSON.stringify({ type: 'event' }) + '\n' +
  JSON.stringify({ event_id: 'a'.repeat(32), message: 'bench', level: 'error', breadcrumbs: Array.from({ length: 20 }, (_, i) => ({ message: `crumb ${i}` })) }) + '\n'
const post = { body: envelope, contentType: 'text/plain;charset=UTF-8' }
// Saturation (50 connections) gives the throughput; its latency is mostly queueing. The
// latency the tunnel adds is measured at a steady moderate rate, after that warm-up.
const MODERATE_RATE = 300
const tunnelOnly = await load(`${tunnelAlone.origin}/monitoring?o=0&p=1`, 50, post)
const tunnelOnlyModerate = await load(`${tunnelAlone.origin}/monitoring?o=0&p=1`, 1, post, MODERATE_RATE)
await stop(tunnelAlone.child)
const tunnelApp = await startApp({ SENTRY_DSN: dsn })
const tunnel = await load(`${tunnelApp.origin}/monitoring?o=0&p=1`, 50, post)
const tunnelModerate = await load(`${tunnelApp.origin}/monitoring?o=0&p=1`, 1, post, MODERATE_RATE)
const direct = await load(`${sinkOrigin}/api/1/envelope/`, 50, post)
const directModerate = await load(`${sinkOrigin}/api/1/envelope/`, 1, post, MODERATE_RATE)
await stop(tunnelApp.child)
sink.kill('SIGKILL')

/** Medians of the cold loads, per page. */
const firstLoadMedians = Object.fromEntries(
  Object.entries(loads).map(([path, series]) => [
    path,
    { fcpMsMedian: Number(median(series.fcp).toFixed(1)), hydratedMsMedian: Number(median(series.hydrated).toFixed(1)) },
  ]),
)
const results = {
  machine: { cpus: 2, pinned: Boolean(TASKSET), durationSeconds: DURATION_S },
  throughput,
  limits: {
    rounds: ROUNDS,
    reactRenderToStringPerSecond: rendersPerSecond,
    fastifyFixedPagePerSecond: fixedPagePerSecond,
    combinedPerSecond: Math.round(combinedLimit),
    itemsShareOfCombined: Number(median(itemsShares).toFixed(2)),
    itemsShareOfCombinedPerRound: itemsShares.map((share) => Number(share.toFixed(2))),
    aboutShareOfFixedPage: Number(median(aboutShares).toFixed(2)),
    aboutShareOfFixedPagePerRound: aboutShares.map((share) => Number(share.toFixed(2))),
  },
  bytes: { firstLoadJsGzip, htmlBytes, firstLoadJsBrotliSent, htmlBrotliSent },
  compression: {
    itemsShareOfUncompressed: Number(median(itemsCompressionShares).toFixed(2)),
    itemsShareOfUncompressedPerRound: itemsCompressionShares.map((share) => Number(share.toFixed(2))),
    aboutShareOfUncompressed: Number(median(aboutCompressionShares).toFixed(2)),
    aboutShareOfUncompressedPerRound: aboutCompressionShares.map((share) => Number(share.toFixed(2))),
  },
  browser: {
    firstLoad: firstLoadMedians,
    clickToContentPrefetchedMsMedian: Number(median(prefetched).toFixed(1)),
    clickToContentColdMsMedian: Number(median(cold).toFixed(1)),
  },
  tunnel: {
    envelopesPerSecond: tunnel.requestsPerSecond,
    errors: tunnel.errors + tunnelModerate.errors,
    addedP99MsAtSaturation: tunnel.p99Ms - direct.p99Ms,
    [`addedP99MsAt${MODERATE_RATE}PerSecond`]: tunnelModerate.p99Ms - directModerate.p99Ms,
    withoutServerSdk: {
      envelopesPerSecond: tunnelOnly.requestsPerSecond,
      errors: tunnelOnly.errors + tunnelOnlyModerate.errors,
      addedP99MsAtSaturation: tunnelOnly.p99Ms - direct.p99Ms,
      [`addedP99MsAt${MODERATE_RATE}PerSecond`]: tunnelOnlyModerate.p99Ms - directModerate.p99Ms,
    },
  },
  rssAfterLoadMb,
  manyUrls: { requests: 100_000, distinctUrls: 10_000, ...manyUrlsRun, rssAfterMb: rssAfterManyUrlsMb },
  scaling: {
    ...Object.fromEntries(ROW_COUNTS.map((rows) => [`rows${rows}`, scaling[String(rows)]])),
    usPerRow20To200: Number(usPerRow(20, 200).toFixed(2)),
    usPerRow200To2000: Number(usPerRow(200, 2000).toFixed(2)),
  },
}
writeFileSync(path.join(projectRoot, 'bench-results.json'), JSON.stringify(results, null, 2))

/** An added latency with its sign: +3, -1. */
const signed = (ms: number) => `${ms >= 0 ? '+' : ''}${ms}`

/** Where a figure's budget is a ratio to Next.js's, measured side by side by the anchors' compare.sh (docs/performance.md). */
const VS_NEXT = (ratio: number) => `budget ${ratio}x Next.js's, by the side-by-side comparison`
const rows: Array<[string, string]> = [
  ...Object.entries(throughput).map(([name, r]): [string, string] => [name, `${r.requestsPerSecond} req/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, errors ${r.errors}`]),
  ['React renderToString (limit)', `${rendersPerSecond} pages/s`],
  ['Fastify fixed page (limit)', `${fixedPagePerSecond} req/s (${htmlBytes} bytes)`],
  ['/items/7 vs combined limit', `${results.limits.itemsShareOfCombined} of ${Math.round(combinedLimit)} req/s (rounds: ${results.limits.itemsShareOfCombinedPerRound.join(', ')}; budget 0.6)`],
  ['/about vs fixed-page limit', `${results.limits.aboutShareOfFixedPage} (rounds: ${results.limits.aboutShareOfFixedPagePerRound.join(', ')}; budget 0.7)`],
  ['first-load JS /items/7', `${(firstLoadJsGzip / 1000).toFixed(1)} KB gzipped (budget 72); HTML ${(htmlBytes / 1000).toFixed(1)} KB`],
  ['  as sent (brotli)', `${(firstLoadJsBrotliSent / 1000).toFixed(1)} KB of scripts (budget 70); HTML ${(htmlBrotliSent / 1000).toFixed(1)} KB`],
  ['compressed vs COMPRESSION=off', `/items/7 ${results.compression.itemsShareOfUncompressed} (rounds: ${results.compression.itemsShareOfUncompressedPerRound.join(', ')}), /about ${results.compression.aboutShareOfUncompressed} (rounds: ${results.compression.aboutShareOfUncompressedPerRound.join(', ')}); budget 0.8`],
  ...Object.entries(firstLoadMedians).flatMap(([path, load]): Array<[string, string]> => [
    [`${path} first contentful paint`, `${load.fcpMsMedian} ms, median of 10 cold loads (${VS_NEXT(0.8)})`],
    [`${path} hydrated`, `${load.hydratedMsMedian} ms from navigation start (${VS_NEXT(0.7)})`],
  ]),
  ['click-to-content prefetched', `${results.browser.clickToContentPrefetchedMsMedian} ms (${VS_NEXT(0.5)})`],
  ['click-to-content cold', `${results.browser.clickToContentColdMsMedian} ms (${VS_NEXT(0.6)})`],
  ['tunnel (@sentry/node loaded)', `${tunnel.requestsPerSecond} envelopes/s (budget 2,000); p99 added: ${signed(tunnelModerate.p99Ms - directModerate.p99Ms)} ms at ${MODERATE_RATE}/s, ${signed(tunnel.p99Ms - direct.p99Ms)} ms at saturation; errors ${results.tunnel.errors}`],
  ['tunnel alone', `${tunnelOnly.requestsPerSecond} envelopes/s; p99 added: ${signed(tunnelOnlyModerate.p99Ms - directModerate.p99Ms)} ms at ${MODERATE_RATE}/s, ${signed(tunnelOnly.p99Ms - direct.p99Ms)} ms at saturation; errors ${results.tunnel.withoutServerSdk.errors}`],
  ['server RSS after load', `${rssAfterLoadMb} MB`],
  [
    'RSS after 100k requests',
    `${rssAfterManyUrlsMb} MB over 10,000 URLs in ${manyUrlsRun.seconds.toFixed(0)} s, errors ${manyUrlsRun.errors} (budget 250 MB)`,
  ],
  ...ROW_COUNTS.map((rows): [string, string] => [`/items/7 with ${rows} rows`, `${scaling[String(rows)]!.requestsPerSecond} req/s, p99 ${scaling[String(rows)]!.p99Ms} ms`]),
  ['time per row', `${results.scaling.usPerRow20To200} us (20 -> 200 rows), ${results.scaling.usPerRow200To2000} us (200 -> 2,000); budget: flat (no superlinear step)`],
]
const width = Math.max(...rows.map(([name]) => name.length))
console.log(`\nbench (${TASKSET ? 'server on CPU 0, load on CPU 1' : 'unpinned'}, ${DURATION_S} s per load, c=50 figures: median of ${ROUNDS} rounds):`)
for (const [name, value] of rows) console.log(`  ${name.padEnd(width)}  ${value}`)
console.log('\nwritten to bench-results.json')
