import { NOT_FOUND_TEXT } from '../../../shared/framework/error-texts.js'
import { Link } from './link.js'

/** Shown for a path no route matches, a param that fails its check, or `notFound()`. */
export function NotFoundPage() {
  return (
    <section className="status-page">
      <h1>{`404: ${NOT_FOUND_TEXT}`}</h1>
      <p>
        <Link href="/">Go to the home page</Link>
      </p>
    </section>
  )
}
