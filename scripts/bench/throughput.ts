/**
 * /items/7 and /about at 50 connections, against the limits measured in the same run
 * (React rendering the page to a string, Fastify answering a fixed page of the same
 * size) and against a server with COMPRESSION=off; then at 1 connection.
 */
import { median } from '../bench-navigation.js'
import { COMPRESSED, load, warmUp, type Load } from './load.js'
import { firstLine, onCpu0, originOf, startApp, stop } from './processes.js'

export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)

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

export interface ThroughputFigures {
  readonly throughput: Record<string, Load>
  readonly rendersPerSecond: number
  readonly fixedPagePerSecond: number
  readonly combinedLimit: number
  /** Per round: /items/7 as a share of the combined limit, /about of the fixed page. */
  readonly itemsShares: number[]
  readonly aboutShares: number[]
  /** Per round: each page with compression as a share of the same page from a COMPRESSION=off server. */
  readonly itemsCompressionShares: number[]
  readonly aboutCompressionShares: number[]
}

/** The origins a round loads: our server, the COMPRESSION=off one, the fixed page. */
interface Origins {
  readonly app: string
  readonly uncompressed: string
  readonly fixed: string
}

/** React rendering the page to a string (read once, so joined into one) in a loop, on CPU 0 (our server idles meanwhile). */
async function renderLimit(): Promise<number> {
  const child = onCpu0([process.execPath, '--import', 'tsx', 'scripts/bench/render-limit.tsx'], { NODE_ENV: 'production' })
  const [, json] = await firstLine(child, /(\{.*\})/)
  return JSON.parse(json!).rendersPerSecond as number
}

async function measureRound(origins: Origins): Promise<Round> {
  const rendersPerSecond = await renderLimit()
  const items = await load(`${origins.app}/items/7`, 50)
  const fixedPage = await load(`${origins.fixed}/`, 50)
  const about = await load(`${origins.app}/about`, 50)
  const itemsCompressed = await load(`${origins.app}/items/7`, 50, undefined, undefined, COMPRESSED)
  const itemsOff = await load(`${origins.uncompressed}/items/7`, 50, undefined, undefined, COMPRESSED)
  const aboutCompressed = await load(`${origins.app}/about`, 50, undefined, undefined, COMPRESSED)
  const aboutOff = await load(`${origins.uncompressed}/about`, 50, undefined, undefined, COMPRESSED)
  return {
    items,
    about,
    fixedPage,
    itemsCompressed,
    itemsOff,
    aboutCompressed,
    aboutOff,
    rendersPerSecond,
    combinedLimit: 1 / (1 / rendersPerSecond + 1 / fixedPage.requestsPerSecond),
  }
}

/**
 * Our server and the limits in alternating rounds: this machine's speed drifts by tens
 * of percent within minutes, so each share compares figures taken side by side, and the
 * medians of the rounds are reported.
 */
async function measureRounds(appOrigin: string, htmlBytes: number): Promise<Round[]> {
  /** A server with COMPRESSION=off beside ours, for the share compression keeps. */
  const uncompressed = await startApp({ COMPRESSION: 'off' })
  const fixed = onCpu0([process.execPath, '--import', 'tsx', 'scripts/bench/fixed-page-server.ts'], { BYTES: String(htmlBytes) })
  const origins = { app: appOrigin, uncompressed: uncompressed.origin, fixed: await originOf(fixed) }
  await warmUp([`${origins.app}/items/7`, `${origins.app}/about`, `${origins.fixed}/`])
  await warmUp([`${origins.app}/items/7`, `${origins.app}/about`, `${origins.uncompressed}/items/7`, `${origins.uncompressed}/about`], COMPRESSED)
  const rounds: Round[] = []
  for (let round = 0; round < ROUNDS; round++) rounds.push(await measureRound(origins))
  fixed.kill('SIGKILL')
  await stop(uncompressed.child)
  return rounds
}

export async function measureThroughput(appOrigin: string, htmlBytes: number): Promise<ThroughputFigures> {
  const rounds = await measureRounds(appOrigin, htmlBytes)
  const itemsCompressionShares = rounds.map((r) => r.itemsCompressed.requestsPerSecond / r.itemsOff.requestsPerSecond)
  const aboutCompressionShares = rounds.map((r) => r.aboutCompressed.requestsPerSecond / r.aboutOff.requestsPerSecond)
  /** The round with the median value of `figure`. */
  const medianRound = (figure: (round: Round) => number) => [...rounds].sort((a, b) => figure(a) - figure(b))[Math.floor(rounds.length / 2)]!
  const throughput: Record<string, Load> = {
    '/items/7 c=50': medianRound((r) => r.items.requestsPerSecond).items,
    '/items/7 c=1': await load(`${appOrigin}/items/7`, 1),
    '/about c=50': medianRound((r) => r.about.requestsPerSecond).about,
    '/about c=1': await load(`${appOrigin}/about`, 1),
  }
  return {
    throughput,
    rendersPerSecond: median(rounds.map((r) => r.rendersPerSecond)),
    fixedPagePerSecond: median(rounds.map((r) => r.fixedPage.requestsPerSecond)),
    combinedLimit: median(rounds.map((r) => r.combinedLimit)),
    itemsShares: rounds.map((r) => r.items.requestsPerSecond / r.combinedLimit),
    aboutShares: rounds.map((r) => r.about.requestsPerSecond / r.fixedPage.requestsPerSecond),
    itemsCompressionShares,
    aboutCompressionShares,
  }
}
