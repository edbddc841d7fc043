import { layouts } from '../../shared/routes.js'
import { defineServerLayout } from '../framework/index.js'

const LIST_COUNT = 10

/** The sidebar's lists: the same for every page in the layout, so the browser keeps them. */
export default defineServerLayout(layouts.items, {
  loader: () => ({
    lists: Array.from({ length: LIST_COUNT }, (_, i) => ({ id: i + 1, title: `Item list ${i + 1}` })),
  }),
})
