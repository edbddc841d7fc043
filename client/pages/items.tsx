import { useState } from 'react'
import { href, routes } from '../../shared/routes.js'
import { definePage, Link, LongList, type PageProps } from '../framework/index.js'

export default definePage(routes.items, {
  title: (data) => data.title,
  head: (data) => ({
    description: `${data.title}: ${data.rows.length} rows of names, prices and tags.`,
    // One URL for the list however it was reached (`/items/007`, `/items/7?sort=x`).
    canonical: href('items', { id: String(data.id) }),
    openGraph: { title: data.title, type: 'website' },
  }),
  Component: ItemsPage,
})

function ItemsPage({ data }: PageProps<typeof routes.items>) {
  return (
    <article>
      <h1>{data.title}</h1>
      <p>
        Other lists are in the sidebar; what this site is: <Link href={href('about')}>About</Link>. This list&apos;s{' '}
        <Link href={href('stats', { id: String(data.id) })}>price statistics</Link>.
      </p>
      <Counter />
      <table>
        <thead>
          <tr>
            <th>n</th>
            <th>name</th>
            <th>price</th>
            <th>tags</th>
          </tr>
        </thead>
        <tbody>
          <LongList items={data.rows}>
            {(row) => (
              <tr key={row.n}>
                <td>{row.n}</td>
                <td>{row.name}</td>
                <td>{row.price.toFixed(2)}</td>
                <td>{row.tags.join(', ')}</td>
              </tr>
            )}
          </LongList>
        </tbody>
      </table>
    </article>
  )
}

/** Something to hydrate: it only counts once React runs in the browser. */
function Counter() {
  const [count, setCount] = useState(0)
  return (
    <button type="button" className="counter" onClick={() => setCount((n) => n + 1)}>
      Clicked {count} times
    </button>
  )
}
