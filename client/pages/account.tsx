import { routes } from '../../shared/routes.js'
import { definePage, type PageProps } from '../framework/index.js'

export default definePage(routes.account, {
  title: () => 'Your account',
  Component: AccountPage,
})

function AccountPage({ data }: PageProps<typeof routes.account>) {
  return (
    <article>
      <h1>Your account</h1>
      <p>
        You are signed in as <strong>{data.email}</strong>. Only you see this page: it sits in a guarded layout, so signed out it sends you to the
        sign-in page.
      </p>
    </article>
  )
}
