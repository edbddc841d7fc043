import { Link as WouterLink } from 'wouter'
import type { AnchorHTMLAttributes, ReactNode } from 'react'

export interface LinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> {
  /** A path on this site; build it with `href(id, params)` from shared/routes. */
  readonly href: string
  /** Replace the current history entry instead of pushing one. */
  readonly replace?: boolean
  readonly children?: ReactNode
}

/**
 * A link to another page of the app. A plain click is a client-side navigation
 * (through the router's `aroundNav`: chunk and data first, then the swap); modified
 * clicks, middle clicks and no JavaScript fall back to the browser's own link.
 */
export function Link({ href, replace, children, ...rest }: LinkProps) {
  return (
    <WouterLink href={href} replace={replace} {...rest}>
      {children}
    </WouterLink>
  )
}
