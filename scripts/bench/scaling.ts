/** How cost grows with the page's size: /items/7 with 20, 200 and 2,000 rows (rows-server.ts). */
import path from 'node:path'
import { bundleForNode } from '../build.js'
import { load, warmUp, type Load } from './load.js'
import { onCpu0, originOf, projectRoot, stop } from './processes.js'

export const ROW_COUNTS = [20, 200, 2000] as const

/** The load at 50 connections per row count, keyed by the count. */
export type Scaling = Record<string, Load>

export async function measureScaling(): Promise<Scaling> {
  // Bundled like the production server: through tsx, every request's import() of a page
  // module would be a round trip to its loader thread.
  await bundleForNode({ 'rows-server': 'scripts/bench/rows-server.ts' }, path.join(projectRoot, 'dist/bench'))
  const rowsServer = onCpu0([process.execPath, 'dist/bench/rows-server.js'], { NODE_ENV: 'production' })
  const rowsOrigin = await originOf(rowsServer)
  const scaling: Scaling = {}
  await warmUp(ROW_COUNTS.map((rows) => `${rowsOrigin}/items/7?rows=${rows}`))
  for (const rows of ROW_COUNTS) scaling[String(rows)] = await load(`${rowsOrigin}/items/7?rows=${rows}`, 50)
  await stop(rowsServer)
  return scaling
}

/** Microseconds per row between two sizes: flat cost per row means these two are close. */
export function usPerRow(scaling: Scaling, from: number, to: number): number {
  /** Milliseconds of server time per request, from the throughput at 50 connections. */
  const msPerRequest = (rows: number) => 1000 / scaling[String(rows)]!.requestsPerSecond
  return ((msPerRequest(to) - msPerRequest(from)) * 1000) / (to - from)
}
