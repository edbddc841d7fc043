/**
 * Where a visitor goes back to after signing in (docs/architecture.md, "Guards"). It is
 * visitor input: a value that would leave the site (`//evil.example`, `/\evil.example`)
 * is replaced by the fallback, never followed.
 */
import { DATA_PREFIX } from './constants.js'
import { isSameSitePath } from './errors.js'
import { parseTarget, tidyPathname } from './location.js'

export const RETURN_PARAM = 'next'

/** Longer than this is not one a guard made. */
export const MAX_RETURN_PATH = 2048

/** `fallback` when missing, off-site, not a tidy page path, or page data. */
export function returnPath(value: string | null | undefined, fallback: string): string {
  if (!value || value.length > MAX_RETURN_PATH || !isSameSitePath(value)) return fallback
  const location = parseTarget(value)
  if (!location || tidyPathname(location.pathname) !== location.pathname) return fallback
  if (location.pathname === DATA_PREFIX || location.pathname.startsWith(`${DATA_PREFIX}/`)) return fallback
  return location.pageKey
}
