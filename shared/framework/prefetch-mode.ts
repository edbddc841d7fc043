import type { RenderMode } from './route-table.js'

/**
 * When a `<Link>` to a route's page loads it ahead of a click: when the link comes into
 * view, when the user shows intent (hover, focus, touch start), or never. By default
 * a static page in view (its answer is shared, cheap to serve) and a dynamic page on
 * intent (each prefetch runs its loaders).
 */
export type PrefetchMode = 'viewport' | 'intent' | 'none'

export function prefetchModeOf(route: { readonly mode: RenderMode; readonly prefetch?: PrefetchMode | undefined } | undefined): PrefetchMode {
  return route?.prefetch ?? (route?.mode === 'static' ? 'viewport' : 'intent')
}
