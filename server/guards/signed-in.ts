/**
 * The product's one guard: a signed-in visitor. It passes the account kept in the
 * session at sign-in to every loader and action beneath it; signed out, it sends the
 * visitor to the sign-in page, which brings them back here afterwards (`?next=`).
 */
import type { Account } from '../../shared/routes.js'
import { href } from '../../shared/routes.js'
import { SIGNED_IN_COOKIE, saysSignedIn } from '../../shared/signed-in.js'
import { defineGuard, redirectToSignIn } from '../framework/index.js'

/** The session key the account is kept under. */
export const ACCOUNT_KEY = 'account'

export function isAccount(value: unknown): value is Account {
  if (typeof value !== 'object' || value === null) return false
  const { email, signedInAt } = value as Partial<Account>
  return typeof email === 'string' && typeof signedInAt === 'number'
}

export const signedIn = defineGuard<Account>(({ session, location, cookies, response }) => {
  const account = session.get(ACCOUNT_KEY)
  if (isAccount(account)) return account
  // The session ended (expired, or signed out elsewhere): the header's hint goes with it.
  if (saysSignedIn(cookies[SIGNED_IN_COOKIE])) response.deleteCookie(SIGNED_IN_COOKIE)
  throw redirectToSignIn(href('login'), { location })
})
