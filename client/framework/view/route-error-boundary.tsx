import { Component, type ReactNode } from 'react'
import { isDeferredDataError } from '../../../shared/framework/deferred.js'
import type { ErrorComponent, RouteFailure } from '../page-module.js'
import { ClientErrorPage, ErrorPage } from './error-page.js'

interface Props {
  readonly children: ReactNode
  /** Moving to another location gives what failed a new chance. */
  readonly resetKey: string
  /** None: the app's own error page. */
  readonly Fallback: ErrorComponent | undefined
}

interface State {
  readonly failed: boolean
  readonly failure?: RouteFailure
  /** Known once React reported it. */
  readonly failedAt?: string | undefined
}

/** React logs the error itself (hydrateRoot's `onCaughtError`), where monitoring hooks in too. */
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

/** A failed deferred part is the loader's failure, late: its digest finds the server's log line. */
function failureOf(error: unknown): RouteFailure {
  if (!isDeferredDataError(error)) return { kind: 'render' }
  return error.digest !== undefined ? { kind: 'loader', status: 500, digest: error.digest } : { kind: 'loader', status: 500, message: error.message }
}
