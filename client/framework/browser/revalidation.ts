/**
 * Which cached pages an action's change reaches (docs/guide/forms-and-actions.md,
 * "Revalidation"), and reloading the page on screen after it. An action that names nothing reaches every page; one that names
 * routes or layouts reaches the pages of those routes and the pages inside those
 * layouts. A failure screen is always reached: it is no data to keep. A static page
 * never is: its answer is rendered once and shared, the same bytes whatever an action
 * did (and it sits in static layouts only).
 */
import type { Changed } from '../../../shared/framework/actions.js'
import type { ScreenPayload } from '../../../shared/framework/page-payload.js'
import type { Router } from '../../../shared/framework/route-table.js'

export type LayoutChains = Pick<Router<any, any>, 'layoutsOf'>

export function reaches(changed: Changed | undefined, payload: ScreenPayload, chains: LayoutChains): boolean {
  if (payload.kind !== 'page') return true
  if (payload.mode === 'static') return false
  if (!changed) return true
  const { routeId } = payload
  if (routeId !== undefined && changed.routes?.includes(routeId)) return true
  return chains.layoutsOf(routeId).some((layout) => changed.layouts?.includes(layout.id) ?? false)
}

/** The layouts whose data `changed` reaches: all of them when it names nothing. */
export function layoutReached(changed: Changed | undefined, layoutId: string): boolean {
  return !changed || (changed.layouts?.includes(layoutId) ?? false)
}

/**
 * `run`, made safe to ask for at any time: asked while a run is under way, it runs once
 * more after that one, for everyone who asked meanwhile (the run under way may have
 * begun before what they want it to see).
 */
export function coalesced(run: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined
  let again: Promise<void> | undefined
  const start = (): Promise<void> => {
    if (running) {
      const next = () => {
        again = undefined
        return start()
      }
      again ??= running.then(next, next)
      return again
    }
    running = run().finally(() => (running = undefined))
    return running
  }
  return start
}
