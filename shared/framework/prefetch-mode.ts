import type { RenderMode } from './route-table.js'

/** By default a static page in view (its answer is shared, cheap) and a dynamic page on intent (each prefetch runs its loaders). */
export type PrefetchMode = 'viewport' | 'intent' | 'none'

export function prefetchModeOf(route: { readonly mode: RenderMode; readonly prefetch?: PrefetchMode | undefined } | undefined): PrefetchMode {
  return route?.prefetch ?? (route?.mode === 'static' ? 'viewport' : 'intent')
}
