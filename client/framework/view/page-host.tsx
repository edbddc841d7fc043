import { useContext, useEffect, useLayoutEffect, useRef, useSyncExternalStore } from 'react'
import { useRouter } from 'wouter'
import { locationKey } from '../../../shared/framework/location.js'
import { NavigationContext } from './navigation-context.js'
import { PageSourceContext, type ReadyPage } from './page-source.js'
import { applyHeadTags, ERROR_TITLE, headTagsOf, titleOf } from './page-head.js'
import { LayoutsContext, Screen } from './screen.js'

/**
 * Renders the page of the current location from the page source, in its layouts. A location the
 * source does not hold yet (back/forward to a page never loaded, or dropped from the
 * cache) keeps the previous page on screen while the source fetches it.
 */
export function PageHost() {
  const source = useContext(PageSourceContext)
  const engine = useContext(NavigationContext)
  const layouts = useContext(LayoutsContext)
  if (!source) throw new Error('PageHost needs a PageSourceContext provider')
  const key = useLocationKey()
  const read = () => source.read(key)
  const page = useSyncExternalStore(source.subscribe, read, read)

  const lastShown = useRef<{ key: string; page: ReadyPage } | undefined>(undefined)
  if (page && (lastShown.current?.page !== page || lastShown.current.key !== key)) lastShown.current = { key, page }
  const shown = lastShown.current

  useEffect(() => {
    if (!page) source.request(key)
  }, [page, key, source])

  // The page on screen before this one is left (a page for once is then forgotten).
  const previous = useRef(shown)
  useEffect(() => {
    const before = previous.current
    previous.current = shown
    if (before && shown && before.key !== shown.key) source.left?.(before.key, before.page)
  }, [shown, source])

  // Before paint: the title, then scroll and focus for a page that arrived by navigation.
  useLayoutEffect(() => {
    if (!shown) return
    try {
      document.title = titleOf(shown.page)
      applyHeadTags(headTagsOf(shown.page, layouts))
    } catch (error) {
      // A page's `title()` or `head()` that throws (data it did not expect) must not take
      // the whole app down, as an error thrown here would: the page still shows (or its
      // boundary does), under the error title, and the error is reported like any other.
      document.title = ERROR_TITLE
      applyHeadTags([])
      reportError(error)
    }
    engine?.pageShown(shown.key, document.title, shown.page.payload.kind)
  }, [shown, engine, layouts])

  // Boundaries reset when the page on screen changes (not the URL: on back/forward the
  // previous page stays until the next one has loaded).
  return shown ? <Screen page={shown.page} resetKey={shown.key} /> : null
}

/**
 * The key of the current location, from the router's raw location: wouter's own
 * `useLocation` and `useSearch` decode it (`%25` becomes `%`), which loses what the
 * key needs to tell `/100%25` from `/100%`. On the server the raw location is the
 * canonical one the server rendered (`ssrPath`, `ssrSearch`); in the browser it is
 * `location.pathname` and `location.search`; both give the same key.
 */
export function useLocationKey(): string {
  const router = useRouter()
  const [pathname] = router.hook(router)
  const search = router.searchHook(router)
  return locationKey(pathname, search)
}
