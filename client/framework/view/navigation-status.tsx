import { useContext, useSyncExternalStore } from 'react'
import { NavigationContext } from './navigation-context.js'
import type { NavigationState } from './navigation-context.js'

const IDLE: NavigationState = { slow: false, announcement: '' }
const noSubscription = () => () => {}

function useNavigationState(): NavigationState {
  const engine = useContext(NavigationContext)
  return useSyncExternalStore(engine?.subscribe ?? noSubscription, engine?.getState ?? (() => IDLE), () => IDLE)
}

/** Shown while a navigation is slow: the click was heard. */
export function NavigationProgress() {
  const { slow } = useNavigationState()
  return slow ? <div className="nav-progress" role="progressbar" aria-label="Loading page" /> : null
}

/** Rendered (empty) on the server too, so the live region exists before the first announcement. */
export function RouteAnnouncer() {
  const { announcement } = useNavigationState()
  return (
    <div id="route-announcer" className="visually-hidden" aria-live="polite" aria-atomic="true">
      {announcement}
    </div>
  )
}
