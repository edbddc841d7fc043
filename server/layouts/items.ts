import { actionInvalid, actionSuccess } from '../../shared/framework/index.js'
import { layouts } from '../../shared/routes.js'
import { defineServerLayout } from '../framework/index.js'

const LIST_COUNT = 10
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
    /** Stars a list or takes its star away (`starred`: yes or no), whichever page of the layout it is sent from. */
    star: ({ id, starred }, { session }) => {
      const list = /^[0-9]{1,3}$/.test(id) ? Number(id) : 0
      if (list < 1 || list > LIST_COUNT) return actionInvalid({}, 'There is no such list to star.')
      if (starred !== 'yes' && starred !== 'no') return actionInvalid({}, 'Say whether to star the list: yes or no.')
      const others = starredIn(session.get(STARRED_KEY)).filter((other) => other !== list)
      session.set(STARRED_KEY, starred === 'yes' ? [...others, list].sort((a, b) => a - b) : others)
      // Only the sidebar's data changed: the pages of other layouts stay cached.
      return actionSuccess({ changed: { layouts: ['items'] } })
    },
  },
})
