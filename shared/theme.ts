/**
 * The colour theme preference (docs/architecture.md, "Layouts"): light, dark, or the
 * system's. Kept in a cookie that the root layout's `theme` action sets; the server
 * writes it on `<html data-theme>` of every document, so the first paint has the
 * right colours, and the stylesheet does the rest.
 */
export const THEMES = ['light', 'dark', 'system'] as const
export type Theme = (typeof THEMES)[number]

/** The cookie that holds a chosen theme; absent, or "system", means the system's. */
export const THEME_COOKIE = 'theme'

/** A year: a preference, not a session. */
export const THEME_COOKIE_MAX_AGE_S = 365 * 24 * 60 * 60

export function isTheme(value: unknown): value is Theme {
  return typeof value === 'string' && (THEMES as readonly string[]).includes(value)
}

/** The value of `<html data-theme>`: a chosen theme; none for "system" (the stylesheet follows the system then). */
export function documentTheme(cookie: string | undefined): 'light' | 'dark' | undefined {
  return cookie === 'light' || cookie === 'dark' ? cookie : undefined
}
