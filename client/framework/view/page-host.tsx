import { useContext, useEffect, useLayoutEffect, useRef, useSyncExternalStore } from 'react'
import { useRouter } from 'wouter'
import { pageKeyOf } from '../../../shared/framework/location.js'
import { NavigationContext } from './navigation-context.js'
import { PageSourceContext, type ReadyPage } from './page-source.js'
import { LayoutsContext, LayoutTree } from './layout-tree.js'

/** A location the source does not hold yet keeps the previous page on screen while it is fetched. */
export function PageHost() {
  const source = useContext(PageSourceContext)
  const engine = useContext(NavigationContext)
  const layouts = useContext(LayoutsContext)
  if (!source) throw new Error('PageHost needs a PageSourceContext provider')
  const key = usePageKey()
  const read = () => source.read(key)
  const page = useSyncExternalStore(source.subscribe, read, read)

  const lastShown = useRef<{ key: string; page: ReadyPage } | undefined>(undefined)
  if (page && (lastShown.current?.page !== page || lastShown.current.key !== key)) lastShown.current = { key, page }
  const shown = lastShown.current

  useEffect(() => {
    if (!page) source.request(key)
  }, [page, key, source])

  // A page for once is forgotten once left.
  const previous = useRef(shown)
  useEffect(() => {
    const before = previous.current
    previous.current = shown
    if (before && shown && before.key !== shown.key) source.left?.(before.key, before.page)
  }, [shown, source])

  // Before paint: the title, then scroll and focus for a page that arrived by navigation.
  // Until the engine attaches, the head on screen is the server's own for this page.
  useLayoutEffect(() => {
    if (shown) engine?.pageShown(shown.key, shown.page, layouts)
  }, [shown, engine, layouts])

  // Keyed by the page on screen, not the URL: on back/forward the previous page stays until the next has loaded.
  return shown ? <LayoutTree page={shown.page} resetKey={shown.key} /> : null
}

/**
 * From the router's raw location: wouter's `useLocation` and `useSearch` decode it,
 * which cannot tell `/100%25` from `/100%`.
 */
export function usePageKey(): string {
  const router = useRouter()
  const [pathname] = router.hook(router)
  const search = router.searchHook(router)
  return pageKeyOf(pathname, search)
}
