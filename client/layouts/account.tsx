/**
 * The signed-in pages' layout: the account's email, a navigation between its pages and
 * the sign-out form. Its server side is guarded: signed out, no page in it is reached.
 */
import { useLocation } from 'wouter'
import { href, layouts } from '../../shared/routes.js'
import { defineLayout, Form, type LayoutProps, Link } from '../framework/index.js'

const PAGES = [
  { label: 'Overview', href: href('account') },
  { label: 'Activity', href: href('activity') },
] as const

export default defineLayout(layouts.account, {
  Component: AccountLayout,
})

function AccountLayout({ data, children }: LayoutProps<typeof layouts.account>) {
  const [path] = useLocation()
  return (
    <div className="with-sidebar">
      <aside className="sidebar" aria-label="Account">
        <p>
          Signed in as <strong className="account-email">{data.email}</strong>
        </p>
        <ul>
          {PAGES.map((page) => (
            <li key={page.href}>
              <Link href={page.href} aria-current={path === page.href ? 'page' : undefined}>
                {page.label}
              </Link>
            </li>
          ))}
        </ul>
        <Form route={layouts.account} action="signOut">
          {(form) => (
            <button type="submit" aria-disabled={form.pending || undefined}>
              {form.pending ? 'Signing out…' : 'Sign out'}
            </button>
          )}
        </Form>
      </aside>
      <div className="sidebar-content">{children}</div>
    </div>
  )
}
