/** One IntersectionObserver for every prefetching link (docs/architecture.md, "Navigation"). */
import type { NavigationEngine } from './navigation-engine.js'

const ROOT_MARGIN = '200px'

const observed = new Map<Element, { readonly href: string; readonly engine: NavigationEngine }>()
let observer: IntersectionObserver | undefined

function onIntersection(entries: IntersectionObserverEntry[]): void {
  for (const entry of entries) {
    const link = observed.get(entry.target)
    if (!link) continue
    if (entry.isIntersecting) link.engine.prefetch(link.href, 'viewport')
    else link.engine.cancelPrefetch(link.href)
  }
}

export function observeLink(element: Element, href: string, engine: NavigationEngine): () => void {
  if (typeof IntersectionObserver === 'undefined') return () => {}
  observer ??= new IntersectionObserver(onIntersection, { rootMargin: ROOT_MARGIN })
  observed.set(element, { href, engine })
  observer.observe(element)
  return () => {
    observed.delete(element)
    observer?.unobserve(element)
  }
}
