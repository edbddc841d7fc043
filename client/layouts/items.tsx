/**
 * The items layout: around every item list, a sidebar of the lists with a filter box.
 * It stays mounted while the visitor moves from list to list (what is typed in the
 * filter survives), and its data comes once, then is reused while fresh.
 */
import { useState } from 'react'
import { useLocation } from 'wouter'
import { href, layouts } from '../../shared/routes.js'
import { defineLayout, type LayoutProps, Link, type RouteFailure } from '../framework/index.js'

export default defineLayout(layouts.items, {
  Component: ItemsLayout,
  ErrorBoundary: ListFailed,
})

function ItemsLayout({ data, children }: LayoutProps<typeof layouts.items>) {
  const [path] = useLocation()
  const [filter, setFilter] = useState('')
  const needle = filter.trim().toLowerCase()
  const shown = data.lists.filter((list) => list.title.toLowerCase().includes(needle))
  return (
    <div className="with-sidebar">
      <aside className="sidebar" aria-label="Item lists">
        <label>
          Filter lists
          <input type="search" value={filter} onChange={(event) => setFilter(event.target.value)} />
        </label>
        <ul>
          {shown.map((list) => {
            const to = href('items', { id: String(list.id) })
            return (
              <li key={list.id}>
                <Link href={to} aria-current={path === to ? 'page' : undefined}>
                  {list.title}
                </Link>
              </li>
            )
          })}
        </ul>
        {shown.length === 0 && <p>No list matches.</p>}
      </aside>
      <div className="sidebar-content">{children}</div>
    </div>
  )
}

/**
 * An item page that failed (its loader on the server, or its rendering in the
 * browser): said inside the layout, so the sidebar still leads to the other lists.
 */
function ListFailed({ failure }: { readonly failure: RouteFailure }) {
  return (
    <section className="status-page">
      <h1>This item list could not be shown.</h1>
      {failure.kind === 'loader' && failure.digest && <p className="digest">{`Digest: ${failure.digest}`}</p>}
      <p>Pick another one from the list beside this.</p>
    </section>
  )
}
