/**
 * The header's "Sign in" / "Account" link without a per-visitor render: a cookie that
 * only says "this browser signed in" (no secret, readable by scripts), set at sign-in
 * and deleted at sign-out. The server writes it on `<html data-signed-in>` of every
 * document (static pages are kept once per value, as per theme), the stylesheet shows
 * the right link, and the browser updates the attribute after each navigation. It is a
 * hint for the header only: what a visitor may see is decided by the session, in the
 * `signedIn` guard.
 */
export const SIGNED_IN_COOKIE = 'signed_in'

/** The `<html>` attribute the stylesheet reads. */
export const SIGNED_IN_ATTRIBUTE = 'data-signed-in'

/** True when a cookie header's value (`document.cookie` or the request's) says this browser signed in. */
export function saysSignedIn(cookie: string | undefined): boolean {
  return cookie === '1'
}
