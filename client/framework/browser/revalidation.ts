/**
 * Which cached pages an action's change reaches (docs/guide/forms-and-actions.md,
 * "Revalidation"). A failure page always is (no data to keep); a static page never is:
 * it is rendered once and shared, whatever an action did.
 */
import type { ChangedOnWire } from '../../../shared/framework/actions.js'
import { ROUTE_LOAD_TIMEOUT_MS } from '../../../shared/framework/constants.js'
import type { RenderPayload } from '../../../shared/framework/page-payload.js'
import type { Router } from '../../../shared/framework/route-table.js'
import { coalesced } from './coalesced.js'
import type { PageStore } from './page-store.js'

export type LayoutChains = Pick<Router<any, any>, 'layoutsOf'>

export function reaches(changed: ChangedOnWire | undefined, payload: RenderPayload, chains: LayoutChains): boolean {
  if (payload.kind !== 'page') return true
  if (payload.mode === 'static') return false
  if (!changed) return true
  const { routeId } = payload
  if (routeId !== undefined && changed.routes?.includes(routeId)) return true
  return chains.layoutsOf(routeId).some((layout) => changed.layouts?.includes(layout.id) ?? false)
}

/** `changed: {}`: nothing is reached, not even a load under way. */
function namesNoChange(changed: ChangedOnWire | undefined): boolean {
  return changed !== undefined && !changed.routes?.length && !changed.layouts?.length
}

export function layoutReached(changed: ChangedOnWire | undefined, layoutId: string): boolean {
  return !changed || (changed.layouts?.includes(layoutId) ?? false)
}

export interface Revalidation {
  /** Reloads are coalesced: asked for during one, one more runs after it, for all who asked meanwhile. */
  revalidate(changed?: ChangedOnWire): Promise<void>
  /** The page on screen is marked too: the user moved on. */
  invalidate(changed?: ChangedOnWire): void
}

export function revalidation(
  store: PageStore,
  router: Pick<Router<any, any>, 'layoutsOf'>,
  currentKey: () => string,
  hardNavigate: (url: string) => void,
): Revalidation {
  const invalidate = (changed: ChangedOnWire | undefined, shown: string | undefined) =>
    store.invalidate(
      (payload) => reaches(changed, payload, router),
      (id) => layoutReached(changed, id),
      shown,
    )
  const reloadShown = coalesced(async () => {
    const key = currentKey()
    const reloaded = store.reload(key).then((result) => {
      // Gone (a guard now redirects), or not for this page (another build): as a document.
      if (result.kind !== 'ready' && currentKey() === key) hardNavigate(result.kind === 'redirect' ? result.location : key)
    })
    // A hanging reload must not keep a form pending: past the deadline the wait ends.
    let timer: ReturnType<typeof setTimeout> | undefined
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, ROUTE_LOAD_TIMEOUT_MS)))
    await Promise.race([reloaded, deadline])
    clearTimeout(timer)
  })
  return {
    revalidate(changed) {
      if (namesNoChange(changed)) return Promise.resolve()
      const key = currentKey()
      const shown = store.read(key)
      invalidate(changed, key)
      return !shown || reaches(changed, shown.payload, router) ? reloadShown() : Promise.resolve()
    },
    invalidate: (changed) => {
      if (!namesNoChange(changed)) invalidate(changed, undefined)
    },
  }
}
