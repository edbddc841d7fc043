import { Component, type ReactNode } from 'react'
import { isDeferredDataError } from '../../../shared/framework/deferred.js'
import type { ErrorComponent, RouteFailure } from '../page-module.js'
import { ClientErrorPage, ErrorPage } from './error-page.js'

interface Props {
  readonly children: ReactNode
  /** The location on screen: moving to another one gives what failed a new chance. */
  readonly resetKey: string
  /** What to show instead: the nearest error component declared; none: the app's own error page. */
  readonly Fallback: ErrorComponent | undefined
}

interface State {
  readonly failed: boolean
  /** What failed, as the error component is told: a render, or a deferred part of the data (its digest). */
  readonly failure?: RouteFailure
  /** Where the failure happened (known once React reported it). */
  readonly failedAt?: string | undefined
}

/**
 * Catches a render or lifecycle error in what it wraps (a page, or a layout and what
 * is inside it), so the user sees a message there instead of a blank screen: the
 * layouts around it keep working, and a navigation to another location renders it
 * again. React logs the error to the console itself (hydrateRoot's `onCaughtError`);
 * monitoring hooks in there too.
 */
export class RouteErrorBoundary extends Component<Props, State> {
  override state: State = { failed: false }

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { failed: true, failure: failureOf(error) }
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    return state.failed && state.failedAt !== undefined && state.failedAt !== props.resetKey
      ? { failed: false, failedAt: undefined, failure: undefined }
      : null
  }

  override componentDidCatch(): void {
    this.setState({ failedAt: this.props.resetKey })
  }

  override render() {
    if (!this.state.failed) return this.props.children
    const { Fallback } = this.props
    const { failure = { kind: 'render' } } = this.state
    if (Fallback) return <Fallback failure={failure} />
    return failure.kind === 'render' ? <ClientErrorPage /> : <ErrorPage error={{ ...failure, kind: 'error', buildId: '' }} />
  }
}

/** A deferred part that failed is the loader's failure, late: its digest finds the server's log line. */
function failureOf(error: unknown): RouteFailure {
  if (!isDeferredDataError(error)) return { kind: 'render' }
  return error.digest !== undefined ? { kind: 'loader', status: 500, digest: error.digest } : { kind: 'loader', status: 500, message: error.message }
}
