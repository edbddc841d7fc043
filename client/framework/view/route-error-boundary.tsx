import { Component, type ReactNode } from 'react'
import type { ErrorComponent } from '../page-module.js'
import { ClientErrorPage } from './error-page.js'

interface Props {
  readonly children: ReactNode
  /** The location on screen: moving to another one gives what failed a new chance. */
  readonly resetKey: string
  /** What to show instead: the nearest error component declared; none: the app's own error page. */
  readonly Fallback: ErrorComponent | undefined
}

interface State {
  readonly failed: boolean
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

  static getDerivedStateFromError(): Partial<State> {
    return { failed: true }
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    return state.failed && state.failedAt !== undefined && state.failedAt !== props.resetKey ? { failed: false, failedAt: undefined } : null
  }

  override componentDidCatch(): void {
    this.setState({ failedAt: this.props.resetKey })
  }

  override render() {
    if (!this.state.failed) return this.props.children
    const { Fallback } = this.props
    return Fallback ? <Fallback failure={{ kind: 'render' }} /> : <ClientErrorPage />
  }
}
