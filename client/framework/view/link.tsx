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
 * JavaScript fall back to the browser's own link, as does a link the browser opens
 * elsewhere (`target` other than `_self`, or `download`): a plain `<a>`, never
 * prefetched. Unless `prefetch={false}`, the page is prefetched when the link comes
 * into view and when the user shows intent.
 */
export function Link({ href, replace, prefetch = true, children, onMouseEnter, onFocus, onTouchStart, ...rest }: LinkProps) {
  const engine = useContext(NavigationContext)
  const ref = useRef<HTMLAnchorElement>(null)
  const elsewhere = opensElsewhere(rest)

  useEffect(() => {
    if (!engine || !prefetch || elsewhere || !ref.current) return
    return engine.observeLink(ref.current, href)
  }, [engine, prefetch, elsewhere, href])

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

/**
 * True when the browser, not this page, follows the link: another browsing context
 * (`_blank`, a named window, `_parent` or `_top`) or a download. wouter's link would
 * navigate in place (it looks at modifier keys only); React Router and Next.js leave
 * these to the browser too.
 */
function opensElsewhere({ target, download }: Pick<LinkProps, 'target' | 'download'>): boolean {
  return (target !== undefined && target !== '' && target.toLowerCase() !== '_self') || (download !== undefined && download !== false)
}
