/**
 * Server-only records at the type level: each `@ts-expect-error` below must stay an
 * error, or `npm run typecheck` fails. The run-time check (server-only.test.ts) catches
 * what the types cannot see: a spread copy, `unknown` data, a marked string.
 */
import t from 'tap'
import { defineServerLayout, defineServerPage } from '../../server/framework/page-definition.js'
import { hashPasswordSync } from '../../server/framework/passwords.js'
import { markServerOnly } from '../../server/framework/server-only.js'
import { layouts, routes, type ItemRow } from '../../shared/routes.js'

const storedRow = (): ItemRow => ({ n: 1, name: 'row', price: 1, tags: [] })

// Never called: these lines exist for the type checker only.
export function misuses() {
  const row = markServerOnly(storedRow(), 'a stored row')
  defineServerPage(routes.items, {
    // @ts-expect-error: a ServerOnly record cannot be page data, however deep
    loader: () => ({ id: 1, title: 'Items', rows: [row] }),
  })
  defineServerPage(routes.items, {
    // @ts-expect-error: ...nor from an async loader
    loader: async () => ({ id: 1, title: 'Items', rows: [row] }),
  })
  defineServerPage(routes.stats, {
    loader: () => ({
      id: 1,
      title: 'Stats',
      tagCount: 3,
      summary: { count: 0, lowest: 0, highest: 0, mean: 0 },
      // @ts-expect-error: ...nor a deferred part's value
      slow: Promise.resolve(markServerOnly({ median: 0, standardDeviation: 0, tags: [] }, 'kept statistics')),
    }),
  })
  defineServerLayout(layouts.items, {
    // @ts-expect-error: ...nor a layout's data
    loader: () => ({ lists: [markServerOnly({ id: 1, title: 'One', starred: false }, 'a stored list')] }),
  })
  // The framework's password hashes are ServerOnly, so is a record's field holding one.
  const hash = hashPasswordSync('secret')
  defineServerPage(routes.stats, {
    loader: () => ({
      id: 1,
      title: 'Stats',
      tagCount: 3,
      // @ts-expect-error: a hash where the data declares an object
      summary: Object.assign(hash, { count: 0, lowest: 0, highest: 0, mean: 0 }),
      slow: Promise.resolve({ median: 0, standardDeviation: 0, tags: [] }),
    }),
  })
  // Not seen: a field the route's type does not declare (TypeScript accepts extra fields),
  // so the record's whole copy below compiles; the run-time check refuses it.
  defineServerPage(routes.account, { loader: () => ({ email: 'a@example.com', account: { password: hash } }) })
  // What the page shows, picked from the record, compiles.
  defineServerPage(routes.items, { loader: () => ({ id: 1, title: 'Items', rows: [{ ...storedRow() }] }) })
}

t.test('a marked record is the same object, typed ServerOnly', async (t) => {
  const row = storedRow()
  t.equal(markServerOnly(row, 'a stored row'), row)
  t.same(Object.keys(row), ['n', 'name', 'price', 'tags'], 'its own enumerable fields are unchanged')
})
