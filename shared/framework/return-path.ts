/**
 * Where a visitor goes back to after signing in (docs/architecture.md, "Guards"): the
 * page a guard sent them away from travels in `?next=`, and comes back as a form field.
 * Both are visitor input: a value that would leave the site (`//evil.example`,
 * `https://evil.example`, `/\evil.example`), is not a page's path, or is too long is
 * replaced by the fallback, never followed.
 */
import { DATA_PREFIX } from './constants.js'
import { isSameSitePath } from './errors.js'
import { parseTarget, tidyPathname } from './location.js'

/** The query parameter (and form field) that carries the return path. */
export const RETURN_PARAM = 'next'

/** A return path longer than this is not one a guard made: refused. */
export const MAX_RETURN_PATH = 2048

/**
 * `value` as a same-site page location (canonical form), or `fallback` when it is
 * missing, leaves the site, is not a tidy page path, or is page data.
 */
export function returnPath(value: string | null | undefined, fallback: string): string {
  if (!value || value.length > MAX_RETURN_PATH || !isSameSitePath(value)) return fallback
  const location = parseTarget(value)
  if (!location || tidyPathname(location.pathname) !== location.pathname) return fallback
  if (location.pathname === DATA_PREFIX || location.pathname.startsWith(`${DATA_PREFIX}/`)) return fallback
  return location.key
}
