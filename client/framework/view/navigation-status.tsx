import { useContext, useSyncExternalStore } from 'react'
import { NavigationContext } from './navigation-context.js'
import type { NavigationState } from './navigation-context.js'

const IDLE: NavigationState = { slow: false, announcement: '' }
const noSubscription = () => () => {}

function useNavigationState(): NavigationState {
  const engine = useContext(NavigationContext)
  return useSyncExternalStore(engine?.subscribe ?? noSubscription, engine?.getState ?? (() => IDLE), () => IDLE)
}

/** A bar at the top while a navigation is slow (over 150 ms): the click was heard. */
export function NavigationProgress() {
  const { slow } = useNavigationState()
  return slow ? <div className="nav-progress" role="progressbar" aria-label="Loading page" /> : null
}

/**
 * A polite live region that reads out the new page's title after a client-side
 * navigation, as a screen reader would hear a document load. Rendered (empty) on the
 * server too, so it exists before the first announcement.
 */
export function RouteAnnouncer() {
  const { announcement } = useNavigationState()
  return (
    <div id="route-announcer" className="visually-hidden" aria-live="polite" aria-atomic="true">
      {announcement}
    </div>
  )
}
