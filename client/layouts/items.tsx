/**
 * The items layout: around every item list, a sidebar of the lists with a filter box,
 * the visitor's starred lists marked, and on a list's pages a "Star this list" toggle.
 * It stays mounted while the visitor moves from list to list (what is typed in the
 * filter survives), and its data comes once, then is reused while fresh.
 */
import { useState } from 'react'
import { useLocation } from 'wouter'
import { href, layouts, routes } from '../../shared/routes.js'
import { defineLayout, type LayoutProps, Link, type RouteFailure, useAction, useRouteParams } from '../framework/index.js'

export default defineLayout(layouts.items, {
  Component: ItemsLayout,
  ErrorBoundary: ListFailed,
})

function ItemsLayout({ data, children }: LayoutProps<typeof layouts.items>) {
  const [path] = useLocation()
  const [filter, setFilter] = useState('')
  const needle = filter.trim().toLowerCase()
  const shown = data.lists.filter((list) => list.title.toLowerCase().includes(needle))
  // The list of the page on screen (its rows or its statistics): starred from here.
  const ofItems = useRouteParams(routes.items)
  const ofStats = useRouteParams(routes.stats)
  const listId = (ofItems ?? ofStats)?.id
  const onScreen = data.lists.find((list) => String(list.id) === listId)
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
              <li key={list.id} className={list.starred ? 'starred' : undefined}>
                <Link href={to} aria-current={path === to ? 'page' : undefined}>
                  {list.title}
                </Link>
                {list.starred && <span className="star-mark" role="img" aria-label="starred" />}
              </li>
            )
          })}
        </ul>
        {shown.length === 0 && <p>No list matches.</p>}
      </aside>
      <div className="sidebar-content">
        {onScreen && <StarToggle key={onScreen.id} list={onScreen.id} starred={onScreen.starred} />}
        {children}
      </div>
    </div>
  )
}

/**
 * Stars the list on screen without leaving it. It shows what was asked at once (the
 * hook's pending values), and the sidebar's mark once the layout's data is loaded again;
 * a refused or failed toggle shows the star as the server has it. The stars are drawn by
 * the stylesheet (client/styles.css says why).
 */
function StarToggle({ list, starred }: { readonly list: number; readonly starred: boolean }) {
  const star = useAction(layouts.items, 'star')
  const shown = star.values ? star.values.starred === 'yes' : starred
  return (
    <star.Form className="star-toggle" aria-busy={star.pending}>
      {(form) => (
        <>
          <input {...form.hidden('id', String(list))} />
          <input {...form.hidden('starred', shown ? 'no' : 'yes')} />
          <button type="submit" aria-pressed={shown}>
            <span aria-hidden="true" className="star-glyph" /> Star this list
          </button>
        </>
      )}
    </star.Form>
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
