import { useContext, useEffect, useRef, type AnchorHTMLAttributes, type ReactNode, type SyntheticEvent } from 'react'
import { Link as WouterLink } from 'wouter'
import type { PrefetchMode } from '../../../shared/framework/route-table.js'
import { NavigationContext } from './navigation-context.js'

export interface LinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> {
  /** Build it with `href(id, params)` from shared/routes. */
  readonly href: string
  readonly replace?: boolean
  /** `true` (the default): as its route declares, a static page in view, a dynamic one on intent; `false` or `'none'`: never. */
  readonly prefetch?: boolean | PrefetchMode
  readonly children?: ReactNode
}

/** Modified and middle clicks fall back to the browser. A link opened elsewhere (`target`, `download`) is a plain `<a>`, never prefetched. */
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

/** wouter's link would navigate in place (it looks at modifier keys only); React Router and Next.js leave these to the browser too. */
function opensElsewhere({ target, download }: Pick<LinkProps, 'target' | 'download'>): boolean {
  return (target !== undefined && target !== '' && target.toLowerCase() !== '_self') || (download !== undefined && download !== false)
}
