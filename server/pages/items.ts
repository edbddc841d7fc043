import type { ItemRow } from '../../shared/routes.js'
import { routes } from '../../shared/routes.js'
import { defineServerPage } from '../framework/index.js'

const ROW_COUNT = 200

/** The benchmark workload (docs/architecture.md, "Example screens"): keep its data exactly as specified. */
export default defineServerPage(routes.items, {
  loader: ({ params }) => {
    const id = Number(params.id)
    const rows: ItemRow[] = []
    for (let n = 0; n < ROW_COUNT; n++) {
      rows.push({
        n,
        name: `row-${id}-${n}`,
        price: ((n * 37 + id) % 1000) / 10,
        tags: [`a${n % 5}`, `b${n % 7}`],
      })
    }
    return { id, title: `Item list ${id}`, rows }
  },
})
