import { routes } from '../../shared/routes.js'
import { definePage, Form, type PageProps } from '../framework/index.js'

export default definePage(routes.login, {
  title: () => 'Sign in',
  head: () => ({ description: 'Sign in to your account.' }),
  Component: LoginPage,
})

function LoginPage({ data }: PageProps<typeof routes.login>) {
  return (
    <article>
      <h1>Sign in</h1>
      {data.signedInAs && <p role="status">{`You are signed in as ${data.signedInAs}. Signing in again replaces that session.`}</p>}
      <Form route={routes.login} action="signIn" className="login-form">
        {(form) => (
          <>
            <input {...form.hidden('next', data.next)} />
            <p>
              <label htmlFor={form.field('email').id}>Email</label>
              <input {...form.field('email')} type="email" autoComplete="username" />
              {form.error('email')}
            </p>
            <p>
              <label htmlFor={form.field('password').id}>Password</label>
              <input {...form.field('password')} type="password" autoComplete="current-password" />
              {form.error('password')}
            </p>
            <button type="submit" aria-disabled={form.pending || undefined}>
              {form.pending ? 'Signing in…' : 'Sign in'}
            </button>
          </>
        )}
      </Form>
    </article>
  )
}
