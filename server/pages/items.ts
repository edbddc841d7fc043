import { routes } from '../../shared/routes.js'
import { defineServerPage } from '../framework/index.js'
import { itemRows } from '../item-rows.js'

/** The benchmark workload (docs/architecture.md, "Example screens"): keep its data exactly as specified. */
export default defineServerPage(routes.items, {
  loader: ({ params }) => {
    const id = Number(params.id)
    return { id, title: `Item list ${id}`, rows: itemRows(id) }
  },
})
