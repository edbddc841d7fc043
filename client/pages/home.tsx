import { routes } from '../../shared/routes.js'
import { definePage, Link, type PageProps } from '../framework/index.js'

export default definePage(routes.home, {
  title: () => 'Home',
  head: () => ({ description: 'A server-rendered React application on Fastify: what it is, and the screens it shows.' }),
  Component: HomePage,
})

function HomePage({ data }: PageProps<typeof routes.home>) {
  return (
    <article>
      <h1>Server-rendered React on Fastify</h1>
      <p>
        Pages are rendered on the server, hydrated in the browser and routed client-side. The screens below are examples of what the foundation
        delivers.
      </p>
      <ul>
        {data.screens.map((screen) => (
          <li key={screen.href}>
            <Link href={screen.href}>{screen.label}</Link>
          </li>
        ))}
      </ul>
    </article>
  )
}
