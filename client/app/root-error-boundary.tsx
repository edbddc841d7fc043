import { Component, type ReactNode } from 'react'
import { ClientErrorPage } from './error-page.js'

interface State {
  readonly failed: boolean
}

/**
 * Catches a render or lifecycle error that escapes the page, so the user sees a
 * message instead of a blank screen. React logs the error to the console itself
 * (hydrateRoot's `onCaughtError`); monitoring hooks in there too.
 */
export class RootErrorBoundary extends Component<{ children: ReactNode }, State> {
  override state: State = { failed: false }

  static getDerivedStateFromError(): State {
    return { failed: true }
  }

  override render() {
    return this.state.failed ? <ClientErrorPage /> : this.props.children
  }
}
