import { href, routes } from '../../shared/routes.js'
import { definePage, Link, type PageProps } from '../framework/index.js'

export default definePage(routes.about, {
  title: () => 'About',
  head: () => ({ description: 'How this application renders, hydrates and routes its pages.' }),
  Component: AboutPage,
})

function AboutPage({ data }: PageProps<typeof routes.about>) {
  return (
    <article>
      <h1>About</h1>
      <p>{data.paragraph}</p>
      <p>
        <Link href={href('items', { id: '1' })}>See item list 1</Link>
      </p>
    </article>
  )
}
