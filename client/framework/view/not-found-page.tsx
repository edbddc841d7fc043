import { Link } from './link.js'

/** Shown for a path no route matches, a param that fails its check, or `notFound()`. */
export function NotFoundPage() {
  return (
    <section className="status-page">
      <h1>404: This page could not be found.</h1>
      <p>
        <Link href="/">Go to the home page</Link>
      </p>
    </section>
  )
}
