/**
 * Which cached pages an action's change reaches (docs/guide/forms-and-actions.md,
 * "Revalidation"). An action that names nothing reaches every page; one that names
 * routes or layouts reaches the pages of those routes and the pages inside those
 * layouts; one that names an empty change (`changed: {}`) reaches none. Otherwise a
 * failure screen is always reached: it is no data to keep. A static page never is: its
 * answer is rendered once and shared, the same bytes whatever an action did (and it sits
 * in static layouts only).
 */
import type { Changed } from '../../../shared/framework/actions.js'
import { ROUTE_LOAD_TIMEOUT_MS } from '../../../shared/framework/constants.js'
import type { ScreenPayload } from '../../../shared/framework/page-payload.js'
import type { Router } from '../../../shared/framework/route-table.js'
import { coalesced } from './coalesced.js'
import type { PageStore } from './page-store.js'

export type LayoutChains = Pick<Router<any, any>, 'layoutsOf'>

export function reaches(changed: Changed | undefined, payload: ScreenPayload, chains: LayoutChains): boolean {
  if (payload.kind !== 'page') return true
  if (payload.mode === 'static') return false
  if (!changed) return true
  const { routeId } = payload
  if (routeId !== undefined && changed.routes?.includes(routeId)) return true
  return chains.layoutsOf(routeId).some((layout) => changed.layouts?.includes(layout.id) ?? false)
}

/** True when an action says it changed no page's data (`changed: {}`): nothing is reached, not even a load under way. */
function namesNoChange(changed: Changed | undefined): boolean {
  return changed !== undefined && !changed.routes?.length && !changed.layouts?.length
}

/** The layouts whose data `changed` reaches: all of them when it names nothing. */
export function layoutReached(changed: Changed | undefined, layoutId: string): boolean {
  return !changed || (changed.layouts?.includes(layoutId) ?? false)
}

export interface Revalidation {
  /**
   * After a server action: the pages `changed` reaches are stale and, if it reaches the
   * page on screen, that page is loaded again (the layouts it reaches too, the others'
   * data cached); resolves once the answer is on screen. Reloads are coalesced: asked for
   * during one, one more runs after it, for all who asked meanwhile.
   */
  revalidate(changed?: Changed): Promise<void>
  /** Marks the pages `changed` reaches stale, the page on screen too (the user moved on). */
  invalidate(changed?: Changed): void
}

export function revalidation(
  store: PageStore,
  router: Pick<Router<any, any>, 'layoutsOf'>,
  currentKey: () => string,
  hardNavigate: (url: string) => void,
): Revalidation {
  const invalidate = (changed: Changed | undefined, shown: string | undefined) =>
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
    // A reload that hangs does not keep a form pending: past a navigation's deadline the
    // wait ends (the page stays as it is; the reload may still land).
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
