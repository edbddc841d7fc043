/**
 * The product's root layout: around every page, the not-found and error pages
 * included. The site's name, the main navigation (the current section marked for
 * assistive technology with `aria-current="page"`), and a footer with the theme
 * choice. Product code: change it freely; the framework puts `<main>` around `children`.
 */
import { useLocation } from 'wouter'
import { href, layouts } from '../../shared/routes.js'
import { defineLayout, type LayoutProps, Link } from '../framework/index.js'
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
      </header>
      {children}
      <footer className="site-footer">
        <p>Rendered on the server, navigated in the browser.</p>
        <ThemeChoice />
      </footer>
    </>
  )
}
