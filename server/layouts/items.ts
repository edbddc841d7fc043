import { actionSuccess } from '../../shared/framework/index.js'
import { layouts, LIST_COUNT } from '../../shared/routes.js'
import { defineServerLayout } from '../framework/index.js'

/** Where the lists a visitor starred are kept in their session: their ids. */
const STARRED_KEY = 'starredLists'

function starredIn(value: unknown): number[] {
  return Array.isArray(value) ? value.filter((id): id is number => Number.isInteger(id)) : []
}

/** The sidebar's lists, the visitor's starred ones marked; the browser keeps them while fresh. */
export default defineServerLayout(layouts.items, {
  loader: ({ session }) => {
    const starred = new Set(starredIn(session.get(STARRED_KEY)))
    return {
      lists: Array.from({ length: LIST_COUNT }, (_, i) => ({ id: i + 1, title: `Item list ${i + 1}`, starred: starred.has(i + 1) })),
    }
  },
  actions: {
    /** Stars a list or takes its star away, whichever page of the layout it is sent from; the table's schema refused any other list. */
    star: ({ id, starred }, { session }) => {
      const others = starredIn(session.get(STARRED_KEY)).filter((other) => other !== id)
      session.set(STARRED_KEY, starred === 'yes' ? [...others, id].sort((a, b) => a - b) : others)
      // Only the sidebar's data changed: the pages of other layouts stay cached.
      return actionSuccess({ changed: { layouts: ['items'] } })
    },
  },
})
