import { useEffect } from 'react'
import { CLIENT_ERROR_TEXT, REFUSAL_TEXT, SERVER_ERROR_TEXT } from '../../../shared/framework/error-texts.js'
import type { ErrorPayload } from '../../../shared/framework/page-payload.js'
import { showDevError } from './dev-overlay.js'
import type {} from '../browser/import-meta.js' // `import.meta.env`'s type

/** A server error (500 up) shows the fixed text and digest, never the message; a client error its status and message. */
export function ErrorPage({ error }: { error: ErrorPayload }) {
  useEffect(() => {
    // Only `npm run dev` sends one; in the build the condition is `false` and the overlay's code is left out.
    if (import.meta.env.DEV && error.devError) showDevError(error.devError)
  }, [error])
  if (error.status >= 500 && (error.digest !== undefined || error.message === undefined)) {
    return (
      <section className="status-page">
        <h1>{SERVER_ERROR_TEXT}</h1>
        {error.digest && <p className="digest">{`Digest: ${error.digest}`}</p>}
      </section>
    )
  }
  return (
    <section className="status-page">
      <h1>{error.status}</h1>
      <p>{error.message ?? REFUSAL_TEXT}</p>
    </section>
  )
}

export function ClientErrorPage() {
  return (
    <section className="status-page">
      <h1>{CLIENT_ERROR_TEXT}</h1>
    </section>
  )
}
