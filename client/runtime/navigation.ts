/**
 * Client-side navigation through wouter's `aroundNav`: the target's chunk and data
 * are loaded first and the URL changes only when the new page is ready, so the old
 * page stays interactive meanwhile and the new one appears whole. A newer navigation
 * supersedes an older one (the older never renders). Anything that cannot be shown
 * in place becomes a document load of the target: never a dead UI.
 */
import type { AroundNavHandler, NavigateOptions } from 'wouter'
import { locationKey } from '../../shared/page-payload.js'
import type { PageStore } from './page-store.js'

/** More redirects than this in one navigation is a loop: let the browser handle it. */
const MAX_REDIRECTS = 10

export interface NavigationOptions {
  readonly store: PageStore
  /** A full document load; `location.assign` in the browser. */
  readonly hardNavigate: (url: string) => void
}

export function createAroundNav({ store, hardNavigate }: NavigationOptions): AroundNavHandler {
  let latest = 0

  function go(
    navigate: (to: string, options?: NavigateOptions) => void,
    to: string,
    options: NavigateOptions | undefined,
    ticket: number,
    redirects: number,
  ): void {
    const url = new URL(to, window.location.href)
    if (url.origin !== window.location.origin) return hardNavigate(url.href)
    const key = locationKey(url.pathname, url.search)

    void store.load(key).then((result) => {
      if (ticket !== latest) return // superseded by a newer navigation
      switch (result.kind) {
        case 'ready': {
          navigate(url.pathname + url.search + url.hash, options)
          afterNavigate(url, options)
          return
        }
        case 'redirect': {
          if (redirects >= MAX_REDIRECTS) return hardNavigate(result.location)
          // The redirect target takes the place of the link's URL in history.
          return go(navigate, result.location, options, ticket, redirects + 1)
        }
        case 'reload':
          return hardNavigate(url.pathname + url.search + url.hash)
      }
    })
  }

  return (navigate, to, options) => go(navigate, to, options, ++latest, 0)
}

/** Scroll as a document load would: to the `#hash` target, else the top. */
function afterNavigate(url: URL, options: NavigateOptions | undefined): void {
  const target = url.hash ? document.getElementById(decodeURIComponent(url.hash.slice(1))) : null
  if (target) target.scrollIntoView()
  else if (!options?.replace) window.scrollTo(0, 0)
}
