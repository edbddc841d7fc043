/**
 * The product's root layout: around every page, the not-found and error pages
 * included. The site's name, the main navigation (the current section marked for
 * assistive technology with `aria-current="page"`), and a footer. Product code: change
 * it freely; the framework only puts the page (in `<main>`) where `children` is.
 */
import type { ReactNode } from 'react'
import { useLocation } from 'wouter'
import { href } from '../../shared/routes.js'
import { Link } from '../app/link.js'

/** The sections of the main navigation, and which paths belong to each. */
const SECTIONS = [
  { label: 'Home', href: href('home'), current: (path: string) => path === '/' },
  { label: 'Items', href: href('items', { id: '1' }), current: (path: string) => path.startsWith('/items/') },
  { label: 'About', href: href('about'), current: (path: string) => path === '/about' },
  { label: 'Contact', href: href('contact'), current: (path: string) => path === '/contact' },
] as const

export function RootLayout({ children }: { readonly children: ReactNode }) {
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
      </footer>
    </>
  )
}
