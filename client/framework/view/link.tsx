import { useContext, useEffect, useRef, type AnchorHTMLAttributes, type ReactNode, type SyntheticEvent } from 'react'
import { Link as WouterLink } from 'wouter'
import type { PrefetchMode } from '../../../shared/framework/route-table.js'
import { NavigationContext } from './navigation-context.js'

export interface LinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> {
  /** A path on this site; build it with `href(id, params)` from shared/routes. */
  readonly href: string
  /** Replace the current history entry instead of pushing one. */
  readonly replace?: boolean
  /**
   * Load the page ahead of a click: as its route declares (`true`, the default: a
   * static page when the link comes into view, a dynamic page on hover, focus or
   * touch start), never (`false` or `'none'`), or as given (`'viewport'`, `'intent'`).
   */
  readonly prefetch?: boolean | PrefetchMode
  readonly children?: ReactNode
}

/**
 * A link to another page of the app. A plain click is a client-side navigation
 * (chunk and data first, then the swap); modified clicks, middle clicks and no
 * JavaScript fall back to the browser's own link, as does a link the browser opens
 * elsewhere (`target` other than `_self`, or `download`): a plain `<a>`, never
 * prefetched. Otherwise the page is prefetched as `prefetch` says; a link in view
 * also prefetches on intent.
 */
export function Link({ href, replace, prefetch = true, children, onMouseEnter, onFocus, onTouchStart, ...rest }: LinkProps) {
  const engine = useContext(NavigationContext)
  const ref = useRef<HTMLAnchorElement>(null)
  const elsewhere = opensElsewhere(rest)
  const mode: PrefetchMode = prefetch === false ? 'none' : prefetch === true ? (engine?.prefetchModeOf(href) ?? 'none') : prefetch

  useEffect(() => {
    if (!engine || mode !== 'viewport' || elsewhere || !ref.current) return
    return engine.observeLink(ref.current, href)
  }, [engine, mode, elsewhere, href])

  if (elsewhere) {
    return (
      <a ref={ref} href={href} onMouseEnter={onMouseEnter} onFocus={onFocus} onTouchStart={onTouchStart} {...rest}>
        {children}
      </a>
    )
  }

  function withIntent<E extends SyntheticEvent>(handler: ((event: E) => void) | undefined) {
    return (event: E) => {
      handler?.(event)
      if (mode !== 'none') engine?.prefetch(href, 'intent')
    }
  }

  return (
    <WouterLink
      ref={ref}
      href={href}
      replace={replace}
      onMouseEnter={withIntent(onMouseEnter)}
      onFocus={withIntent(onFocus)}
      onTouchStart={withIntent(onTouchStart)}
      {...rest}
    >
      {children}
    </WouterLink>
  )
}

/**
 * True when the browser, not this page, follows the link: another browsing context
 * (`_blank`, a named window, `_parent` or `_top`) or a download. wouter's link would
 * navigate in place (it looks at modifier keys only); React Router and Next.js leave
 * these to the browser too.
 */
function opensElsewhere({ target, download }: Pick<LinkProps, 'target' | 'download'>): boolean {
  return (target !== undefined && target !== '' && target.toLowerCase() !== '_self') || (download !== undefined && download !== false)
}
