/**
 * The browser's copy of layout data (docs/architecture.md, "Layouts"): a page-data fetch
 * names the layouts cached fresh, the server leaves their data out, and `complete` puts
 * it back, so a navigation within one layout fetches only what changed.
 */
import { DYNAMIC_DATA_TTL_MS, STATIC_DATA_TTL_MS } from '../../../shared/framework/constants.js'
import type { AnyPayload } from '../../../shared/framework/page-payload.js'
import type { Router } from '../../../shared/framework/route-table.js'

interface Entry {
  readonly data: unknown
  readonly fetchedAt: number
}

export type CachedLayouts = ReadonlyMap<string, unknown>

export class LayoutData {
  readonly #entries = new Map<string, Entry>()
  readonly #router: Pick<Router<any, any>, 'layouts' | 'layoutsOf'>
  readonly #now: () => number
  /** Counts the actions' changes; by layout, the count when its data was last forgotten. */
  #changes = 0
  readonly #forgottenAt = new Map<string, number>()

  constructor(router: Pick<Router<any, any>, 'layouts' | 'layoutsOf'>, now: () => number) {
    this.#router = router
    this.#now = now
  }

  freshFor(routeId: string | undefined): CachedLayouts {
    const cached = new Map<string, unknown>()
    for (const layout of this.#router.layoutsOf(routeId)) {
      const entry = this.#entries.get(layout.id)
      if (!entry) continue
      const ttl = layout.mode === 'static' ? STATIC_DATA_TTL_MS : DYNAMIC_DATA_TTL_MS
      if (this.#now() - entry.fetchedAt < ttl) cached.set(layout.id, entry.data)
    }
    return cached
  }

  get changes(): number {
    return this.#changes
  }

  /** Data asked for before an action changed its layout (`since`) completes its payload but is not kept. */
  complete<P extends AnyPayload>(payload: P, cached: CachedLayouts, fetchedAt: number, since = this.#changes): P {
    if (payload.kind === 'redirect') return payload
    const brought = payload.layouts ?? {}
    for (const [id, data] of Object.entries(brought)) {
      const current = (this.#forgottenAt.get(id) ?? 0) <= since
      if (current && Object.hasOwn(this.#router.layouts, id)) this.#entries.set(id, { data, fetchedAt })
    }
    const missing = [...cached].filter(([id]) => !Object.hasOwn(brought, id))
    if (missing.length === 0) return payload
    return { ...payload, layouts: { ...Object.fromEntries(missing), ...brought } }
  }

  forget(reached: (id: string) => boolean): void {
    this.#changes++
    for (const id of Object.keys(this.#router.layouts)) {
      if (!reached(id)) continue
      this.#entries.delete(id)
      this.#forgottenAt.set(id, this.#changes)
    }
  }
}
