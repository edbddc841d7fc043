import { useContext, useEffect, useRef, type AnchorHTMLAttributes, type ReactNode, type SyntheticEvent } from 'react'
import { Link as WouterLink } from 'wouter'
import { NavigationContext } from './navigation-context.js'

export interface LinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> {
  /** A path on this site; build it with `href(id, params)` from shared/routes. */
  readonly href: string
  /** Replace the current history entry instead of pushing one. */
  readonly replace?: boolean
  /** Load the page ahead of a click (in view, on hover, focus or touch). Default true. */
  readonly prefetch?: boolean
  readonly children?: ReactNode
}

/**
 * A link to another page of the app. A plain click is a client-side navigation
 * (chunk and data first, then the swap); modified clicks, middle clicks and no
 * JavaScript fall back to the browser's own link. Unless `prefetch={false}`, the
 * page is prefetched when the link comes into view and when the user shows intent.
 */
export function Link({ href, replace, prefetch = true, children, onMouseEnter, onFocus, onTouchStart, ...rest }: LinkProps) {
  const engine = useContext(NavigationContext)
  const ref = useRef<HTMLAnchorElement>(null)

  useEffect(() => {
    if (!engine || !prefetch || !ref.current) return
    return engine.observeLink(ref.current, href)
  }, [engine, prefetch, href])

  function withIntent<E extends SyntheticEvent>(handler: ((event: E) => void) | undefined) {
    return (event: E) => {
      handler?.(event)
      if (prefetch) engine?.prefetch(href, 'intent')
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
