/** The bench's figures as bench-results.json and as the printed table, each with its budget. */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { median } from '../bench-navigation.js'
import type { BrowserFigures } from './browser.js'
import type { FirstLoadBytes } from './first-load-bytes.js'
import { DURATION_S } from './load.js'
import type { ManyUrlsFigures } from './many-urls.js'
import { projectRoot, TASKSET } from './processes.js'
import { ROW_COUNTS, usPerRow, type Scaling } from './scaling.js'
import { ROUNDS, type ThroughputFigures } from './throughput.js'
import { MODERATE_RATE, type TunnelFigures } from './tunnel.js'

export interface Figures {
  readonly bytes: FirstLoadBytes
  readonly throughput: ThroughputFigures
  readonly rssAfterLoadMb: number
  readonly manyUrls: ManyUrlsFigures
  readonly scaling: Scaling
  readonly browser: BrowserFigures
  readonly tunnel: TunnelFigures
}

const twoDecimals = (value: number) => Number(value.toFixed(2))

function resultsOf(figures: Figures) {
  const { throughput: t, browser, scaling } = figures
  return {
    machine: { cpus: 2, pinned: Boolean(TASKSET), durationSeconds: DURATION_S },
    throughput: t.throughput,
    limits: {
      rounds: ROUNDS,
      reactRenderToStringPerSecond: t.rendersPerSecond,
      fastifyFixedPagePerSecond: t.fixedPagePerSecond,
      combinedPerSecond: Math.round(t.combinedLimit),
      itemsShareOfCombined: twoDecimals(median(t.itemsShares)),
      itemsShareOfCombinedPerRound: t.itemsShares.map(twoDecimals),
      aboutShareOfFixedPage: twoDecimals(median(t.aboutShares)),
      aboutShareOfFixedPagePerRound: t.aboutShares.map(twoDecimals),
    },
    bytes: figures.bytes,
    compression: {
      itemsShareOfUncompressed: twoDecimals(median(t.itemsCompressionShares)),
      itemsShareOfUncompressedPerRound: t.itemsCompressionShares.map(twoDecimals),
      aboutShareOfUncompressed: twoDecimals(median(t.aboutCompressionShares)),
      aboutShareOfUncompressedPerRound: t.aboutCompressionShares.map(twoDecimals),
    },
    browser: {
      firstLoad: browser.firstLoadMedians,
      clickToContentPrefetchedMsMedian: Number(median(browser.prefetched).toFixed(1)),
      clickToContentColdMsMedian: Number(median(browser.cold).toFixed(1)),
    },
    tunnel: tunnelResults(figures.tunnel),
    rssAfterLoadMb: figures.rssAfterLoadMb,
    manyUrls: { requests: 100_000, distinctUrls: 10_000, ...figures.manyUrls.run, rssAfterMb: figures.manyUrls.rssAfterMb },
    scaling: {
      ...Object.fromEntries(ROW_COUNTS.map((rows) => [`rows${rows}`, scaling[String(rows)]])),
      usPerRow20To200: twoDecimals(usPerRow(scaling, 20, 200)),
      usPerRow200To2000: twoDecimals(usPerRow(scaling, 200, 2000)),
    },
  }
}

function tunnelResults({ tunnel, tunnelModerate, tunnelOnly, tunnelOnlyModerate, direct, directModerate }: TunnelFigures) {
  return {
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
  }
}

type Results = ReturnType<typeof resultsOf>

/** An added latency with its sign: +3, -1. */
const signed = (ms: number) => `${ms >= 0 ? '+' : ''}${ms}`

/** Where a figure's budget is a ratio to Next.js's, measured side by side by the anchors' compare.sh (docs/performance.md). */
const VS_NEXT = (ratio: number) => `budget ${ratio}x Next.js's, by the side-by-side comparison`

/** The server's figures: throughput, its limits, bytes, compression. */
function serverRows({ throughput: t, bytes }: Figures, results: Results): Array<[string, string]> {
  const { limits, compression } = results
  return [
    ...Object.entries(t.throughput).map(([name, r]): [string, string] => [
      name,
      `${r.requestsPerSecond} req/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, errors ${r.errors}`,
    ]),
    ['React renderToString (limit)', `${t.rendersPerSecond} pages/s`],
    ['Fastify fixed page (limit)', `${t.fixedPagePerSecond} req/s (${bytes.htmlBytes} bytes)`],
    [
      '/items/7 vs combined limit',
      `${limits.itemsShareOfCombined} of ${Math.round(t.combinedLimit)} req/s (rounds: ${limits.itemsShareOfCombinedPerRound.join(', ')}; budget 0.6)`,
    ],
    ['/about vs fixed-page limit', `${limits.aboutShareOfFixedPage} (rounds: ${limits.aboutShareOfFixedPagePerRound.join(', ')}; budget 0.7)`],
    ['first-load JS /items/7', `${(bytes.firstLoadJsGzip / 1000).toFixed(1)} KB gzipped (budget 72); HTML ${(bytes.htmlBytes / 1000).toFixed(1)} KB`],
    [
      '  as sent (brotli)',
      `${(bytes.firstLoadJsBrotliSent / 1000).toFixed(1)} KB of scripts (budget 70); HTML ${(bytes.htmlBrotliSent / 1000).toFixed(1)} KB`,
    ],
    [
      'compressed vs COMPRESSION=off',
      `/items/7 ${compression.itemsShareOfUncompressed} (rounds: ${compression.itemsShareOfUncompressedPerRound.join(', ')}), /about ${compression.aboutShareOfUncompressed} (rounds: ${compression.aboutShareOfUncompressedPerRound.join(', ')}); budget 0.8`,
    ],
  ]
}

/** The browser's, the tunnel's, memory and scaling. */
function otherRows({ browser, tunnel: f, rssAfterLoadMb, manyUrls, scaling }: Figures, results: Results): Array<[string, string]> {
  return [
    ...Object.entries(browser.firstLoadMedians).flatMap(([path, load]): Array<[string, string]> => [
      [`${path} first contentful paint`, `${load.fcpMsMedian} ms, median of 10 cold loads (${VS_NEXT(0.8)})`],
      [`${path} hydrated`, `${load.hydratedMsMedian} ms from navigation start (${VS_NEXT(0.7)})`],
    ]),
    ['click-to-content prefetched', `${results.browser.clickToContentPrefetchedMsMedian} ms (${VS_NEXT(0.5)})`],
    ['click-to-content cold', `${results.browser.clickToContentColdMsMedian} ms (${VS_NEXT(0.6)})`],
    [
      'tunnel (@sentry/node loaded)',
      `${f.tunnel.requestsPerSecond} envelopes/s (budget 2,000); p99 added: ${signed(f.tunnelModerate.p99Ms - f.directModerate.p99Ms)} ms at ${MODERATE_RATE}/s, ${signed(f.tunnel.p99Ms - f.direct.p99Ms)} ms at saturation; errors ${results.tunnel.errors}`,
    ],
    [
      'tunnel alone',
      `${f.tunnelOnly.requestsPerSecond} envelopes/s; p99 added: ${signed(f.tunnelOnlyModerate.p99Ms - f.directModerate.p99Ms)} ms at ${MODERATE_RATE}/s, ${signed(f.tunnelOnly.p99Ms - f.direct.p99Ms)} ms at saturation; errors ${results.tunnel.withoutServerSdk.errors}`,
    ],
    ['server RSS after load', `${rssAfterLoadMb} MB`],
    [
      'RSS after 100k requests',
      `${manyUrls.rssAfterMb} MB over 10,000 URLs in ${manyUrls.run.seconds.toFixed(0)} s, errors ${manyUrls.run.errors} (budget 250 MB)`,
    ],
    ...ROW_COUNTS.map((rows): [string, string] => [
      `/items/7 with ${rows} rows`,
      `${scaling[String(rows)]!.requestsPerSecond} req/s, p99 ${scaling[String(rows)]!.p99Ms} ms`,
    ]),
    [
      'time per row',
      `${results.scaling.usPerRow20To200} us (20 -> 200 rows), ${results.scaling.usPerRow200To2000} us (200 -> 2,000); budget: flat (no superlinear step)`,
    ],
  ]
}

/** Writes bench-results.json and prints the table. */
export function report(figures: Figures): void {
  const results = resultsOf(figures)
  writeFileSync(path.join(projectRoot, 'bench-results.json'), JSON.stringify(results, null, 2))
  const rows = [...serverRows(figures, results), ...otherRows(figures, results)]
  const width = Math.max(...rows.map(([name]) => name.length))
  console.log(
    `\nbench (${TASKSET ? 'server on CPU 0, load on CPU 1' : 'unpinned'}, ${DURATION_S} s per load, c=50 figures: median of ${ROUNDS} rounds):`,
  )
  for (const [name, value] of rows) console.log(`  ${name.padEnd(width)}  ${value}`)
  console.log('\nwritten to bench-results.json')
}
