import { routes } from '../../shared/routes.js'
import { definePage, type PageProps } from '../framework/index.js'

export default definePage(routes.activity, {
  title: () => 'Activity',
  Component: ActivityPage,
})

function ActivityPage({ data }: PageProps<typeof routes.activity>) {
  return (
    <article>
      <h1>Activity</h1>
      <p>
        This session signed in at <time dateTime={data.signedInAt}>{data.signedInAt.replace('T', ' ').slice(0, 19)} UTC</time>.
      </p>
    </article>
  )
}
