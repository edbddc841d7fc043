import type { ItemRow } from '../shared/routes.js'

const ROW_COUNT = 200

/** The rows of item list `id` (docs/architecture.md, "Example screens"): the benchmark workload, exactly as specified. */
export function itemRows(id: number): ItemRow[] {
  const rows: ItemRow[] = []
  for (let n = 0; n < ROW_COUNT; n++) {
    rows.push({
      n,
      name: `row-${id}-${n}`,
      price: ((n * 37 + id) % 1000) / 10,
      tags: [`a${n % 5}`, `b${n % 7}`],
    })
  }
  return rows
}
