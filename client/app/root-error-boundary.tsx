import { Component, type ReactNode } from 'react'
import { ClientErrorPage } from './error-page.js'

interface Props {
  readonly children: ReactNode
  /** The location on screen: moving to another one gives the page a new chance. */
  readonly resetKey: string
}

interface State {
  readonly failed: boolean
  /** Where the failure happened (known once React reported it). */
  readonly failedAt?: string | undefined
}

/**
 * Catches a render or lifecycle error that escapes the page, so the user sees a
 * message instead of a blank screen; the root layout around it keeps working, and a
 * navigation to another location renders that page again. React logs the error to the
 * console itself (hydrateRoot's `onCaughtError`); monitoring hooks in there too.
 */
export class RootErrorBoundary extends Component<Props, State> {
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
    return this.state.failed ? <ClientErrorPage /> : this.props.children
  }
}
