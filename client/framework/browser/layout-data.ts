/**
 * The browser's copy of layout data (docs/architecture.md, "Layouts"): by layout id,
 * with when it arrived. A page-data fetch names the layouts cached fresh (300 s for a
 * static layout, 30 s for a dynamic one, the pages' rules), the server leaves their
 * data out, and `complete` puts the copy back before the payload is stored: a
 * navigation between two pages of one layout fetches only what changed, in one request.
 */
import { DYNAMIC_DATA_TTL_MS, STATIC_DATA_TTL_MS } from '../../../shared/framework/constants.js'
import type { AnyPayload } from '../../../shared/framework/page-payload.js'
import type { Router } from '../../../shared/framework/route-table.js'

interface Entry {
  readonly data: unknown
  readonly fetchedAt: number
}

/** What the browser had cached when it asked: the data the answer may leave out. */
export type CachedLayouts = ReadonlyMap<string, unknown>

export class LayoutData {
  readonly #entries = new Map<string, Entry>()
  readonly #router: Pick<Router<any, any>, 'layouts' | 'layoutsOf'>
  readonly #now: () => number
  /** How many times an action's change was forgotten; by layout, the last time its data was. */
  #changes = 0
  readonly #forgottenAt = new Map<string, number>()

  constructor(router: Pick<Router<any, any>, 'layouts' | 'layoutsOf'>, now: () => number) {
    this.#router = router
    this.#now = now
  }

  /** The data of the layouts around `routeId` that is still fresh. */
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

  /** A load notes this when it asks (see `complete`). */
  get changes(): number {
    return this.#changes
  }

  /**
   * Keeps the layout data a payload brought and returns the payload with the cached data
   * it left out put back (a payload that brought everything is returned as it is).
   * A layout's data asked for before an action changed it (`since`, `changes` then) may
   * be from before the change: it completes its own payload but is not kept.
   */
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

  /** Forgets the data of the layouts a server action `reached`: their loaders run again. */
  forget(reached: (id: string) => boolean): void {
    this.#changes++
    for (const id of Object.keys(this.#router.layouts)) {
      if (!reached(id)) continue
      this.#entries.delete(id)
      this.#forgottenAt.set(id, this.#changes)
    }
  }
}
