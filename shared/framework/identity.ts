/**
 * Who a tab's data belongs to (docs/guide/sessions.md, "Two tabs, two accounts"). Each
 * sign-in (`session.regenerate()`) gives the session a new random identity; signing out,
 * a session ending and a session never signed in have none (''). The browser reads it
 * from a cookie scripts may see, set and expired with the session's own, so every tab
 * sees a change made in another; a dynamic page's payload and its forms carry the one
 * they were rendered for. It is no credential: it opens nothing, and only tells a tab
 * that what it shows belongs to another sign-in.
 */

export const IDENTITY_COOKIE = 'session-identity'
/** The hidden field of a form on a dynamic page: the identity its page was rendered for. */
export const IDENTITY_FIELD = '_identity'
/** The code of the 409 a form posted for another identity gets. */
export const IDENTITY_CHANGED_CODE = 'APP_ERR_IDENTITY_CHANGED'

const IDENTITY_VALUE = /^[A-Za-z0-9_-]{1,64}$/

/** A cookie's or field's value as an identity: anything else is none. */
export function asIdentity(value: unknown): string {
  return typeof value === 'string' && IDENTITY_VALUE.test(value) ? value : ''
}

/** The identity the browser's cookies say (`document.cookie` in a tab). */
export function identityInCookies(cookies: string): string {
  const found = cookies.split('; ').find((pair) => pair.startsWith(`${IDENTITY_COOKIE}=`))
  return asIdentity(found?.slice(IDENTITY_COOKIE.length + 1))
}
