import { setTimeout as sleep } from 'node:timers/promises'
import type { ItemRow, PriceSummary, SlowStatistics } from '../../shared/routes.js'
import { routes } from '../../shared/routes.js'
import { defineServerPage } from '../framework/index.js'
import { itemRows } from '../item-rows.js'

/**
 * A list's price statistics: the summary with the page, the slow part deferred. The
 * loader returns the promise without awaiting it: the page streams at once and the
 * part follows when it settles (DEMO_SLOW_MS, standing in for a slow query).
 */
export default defineServerPage(routes.stats, {
  loader: ({ params, search, request }) => {
    const id = Number(params.id)
    const rows = itemRows(id)
    const slow = slowStatistics(rows, search.tags, request.server.config.demoSlowMs)
    return { id, title: `Item list ${id}`, tagCount: search.tags, summary: summaryOf(rows), slow }
  },
})

function summaryOf(rows: readonly ItemRow[]): PriceSummary {
  const prices = rows.map((row) => row.price)
  const total = prices.reduce((sum, price) => sum + price, 0)
  return { count: prices.length, lowest: Math.min(...prices), highest: Math.max(...prices), mean: total / prices.length }
}

async function slowStatistics(rows: readonly ItemRow[], tagCount: number, delayMs: number): Promise<SlowStatistics> {
  await sleep(delayMs, undefined, { ref: false }) // a part still waiting keeps no process alive
  const prices = rows.map((row) => row.price).sort((a, b) => a - b)
  const middle = prices.length >> 1
  const median = prices.length % 2 ? prices[middle]! : (prices[middle - 1]! + prices[middle]!) / 2
  const mean = prices.reduce((sum, price) => sum + price, 0) / prices.length
  const variance = prices.reduce((sum, price) => sum + (price - mean) ** 2, 0) / prices.length
  const counts = new Map<string, number>()
  for (const row of rows) for (const tag of row.tags) counts.set(tag, (counts.get(tag) ?? 0) + 1)
  const tags = [...counts]
    .map(([tag, count]) => ({ tag, rows: count }))
    .sort((a, b) => b.rows - a.rows || a.tag.localeCompare(b.tag))
    .slice(0, tagCount)
  return { median, standardDeviation: Math.sqrt(variance), tags }
}
