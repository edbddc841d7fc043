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
 * Prints a table and writes bench-results.json. Each measurement is a module of
 * scripts/bench/; this file runs them in order, against the servers they share.
 *
 * `npm run bench -- --against <git ref>` measures instead the throughput of this
 * checkout against that commit's, alternating round by round (scripts/bench/ab.ts).
 */
import path from 'node:path'
import { buildClient, buildServer } from './build.js'
import { parseAbArgs } from './bench/ab-args.js'
import { runAb } from './bench/ab.js'
import { measureBrowser } from './bench/browser.js'
import { measureFirstLoadBytes } from './bench/first-load-bytes.js'
import { measureManyUrls } from './bench/many-urls.js'
import { projectRoot, rssMb, startApp, stop } from './bench/processes.js'
import { report } from './bench/report.js'
import { measureScaling } from './bench/scaling.js'
import { measureThroughput } from './bench/throughput.js'
import { measureTunnel } from './bench/tunnel.js'

async function fullBench(): Promise<void> {
  // 1. Build, as a deploy would.
  await buildClient({ entry: 'client/entry.tsx', pagesDir: 'client/pages', outDir: path.join(projectRoot, 'dist/client') })
  await buildServer(path.join(projectRoot, 'dist/server'))

  // 2. Our server: its bytes, its throughput against the limits, then its RSS after that
  // load; memory and scaling on servers of their own meanwhile.
  const app = await startApp()
  const bytes = await measureFirstLoadBytes(app.origin)
  const throughput = await measureThroughput(app.origin, bytes.htmlBytes)
  const rssAfterLoadMb = rssMb(app.child.pid!)
  const manyUrls = await measureManyUrls()
  const scaling = await measureScaling()

  // 3. Browser figures, against the same server.
  const browser = await measureBrowser(app.origin)
  await stop(app.child)

  // 4. The tunnel, on servers of its own.
  const tunnel = await measureTunnel()

  report({ bytes, throughput, rssAfterLoadMb, manyUrls, scaling, browser, tunnel })
}

const ab = parseAbArgs(process.argv.slice(2))
if (ab) await runAb(ab)
else await fullBench()
