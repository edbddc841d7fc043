/**
 * The product's root layout: around every page, the not-found and error pages
 * included. The site's name, the main navigation (the current section marked for
 * assistive technology with `aria-current="page"`), "Sign in" or "Account", and a
 * footer with the theme choice. Product code: change it freely; the framework puts `<main>` around `children`.
 */
import { useEffect } from 'react'
import { useLocation } from 'wouter'
import { href, layouts } from '../../shared/routes.js'
import { SIGNED_IN_ATTRIBUTE, SIGNED_IN_COOKIE, saysSignedIn } from '../../shared/signed-in.js'
import { browserCookie, defineLayout, type LayoutProps, Link } from '../framework/index.js'
import { ThemeChoice } from './theme-choice.js'

/** The sections of the main navigation, and which paths belong to each. */
const SECTIONS = [
  { label: 'Home', href: href('home'), current: (path: string) => path === '/' },
  { label: 'Items', href: href('items', { id: '1' }), current: (path: string) => path.startsWith('/items/') },
  { label: 'About', href: href('about'), current: (path: string) => path === '/about' },
  { label: 'Contact', href: href('contact'), current: (path: string) => path === '/contact' },
] as const

export default defineLayout(layouts.root, {
  // Every page's defaults; a page's own entries replace them.
  head: () => ({ description: 'Fastify React: pages rendered on the server, navigated in the browser.' }),
  Component: RootLayout,
})

function RootLayout({ children }: LayoutProps<typeof layouts.root>) {
  const [path] = useLocation()
  // After a sign-in or sign-out (each ends in a navigation) the header shows the right link.
  useEffect(() => {
    document.documentElement.toggleAttribute(SIGNED_IN_ATTRIBUTE, saysSignedIn(browserCookie(SIGNED_IN_COOKIE)))
  }, [path])
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="site-header">
        <Link href={href('home')} className="site-name">
          Fastify React
        </Link>
        <nav aria-label="Main">
          {SECTIONS.map((section) => (
            <Link key={section.label} href={section.href} aria-current={section.current(path) ? 'page' : undefined}>
              {section.label}
            </Link>
          ))}
        </nav>
        {/* Both are in every page (a static page is shared): the stylesheet shows one, from <html data-signed-in>. */}
        <nav aria-label="Account" className="account-nav">
          <Link href={href('login')} className="sign-in-link" aria-current={path === '/login' ? 'page' : undefined}>
            Sign in
          </Link>
          <Link href={href('account')} className="account-link" aria-current={path.startsWith('/account') ? 'page' : undefined}>
            Account
          </Link>
        </nav>
      </header>
      {children}
      <footer className="site-footer">
        <p>Rendered on the server, navigated in the browser.</p>
        <ThemeChoice />
      </footer>
    </>
  )
}
