/**
 * The demo's accounts: one, from DEMO_ACCOUNT (`email:password`, hashed at start). When
 * it is unset, the demo account `demo@example.com` / `demo-password` exists only while
 * the server listens on a loopback address (a developer's machine): on any other
 * address no fixed credential signs in.
 */
import type { FastifyRequest } from 'fastify'
import { isIP } from 'node:net'
import { hashPasswordSync, verifyPassword, type PasswordHash } from './framework/passwords.js'

export const DEMO_EMAIL = 'demo@example.com'
export const DEMO_PASSWORD = 'demo-password'

/** Hashed once, when first needed: the plain password is in the source only for the loopback demo. */
let demoHash: PasswordHash | undefined

/** Compared against when no account has the email, so a wrong email takes as long as a wrong password. */
const NO_ACCOUNT: PasswordHash = hashPasswordSync('no account has this password')

function isLoopback(host: string): boolean {
  if (host === 'localhost') return true
  if (isIP(host) === 4) return host.startsWith('127.')
  return host === '::1'
}

/** The account an email and password sign in as, or undefined (wrong email or wrong password alike). */
export async function checkCredentials(request: FastifyRequest, email: string, password: string): Promise<string | undefined> {
  const { demoAccount, host } = request.server.config
  const account = demoAccount ?? (isLoopback(host) ? { email: DEMO_EMAIL, password: (demoHash ??= hashPasswordSync(DEMO_PASSWORD)) } : undefined)
  const known = account !== undefined && email.trim().toLowerCase() === account.email
  const matches = await verifyPassword(password, known ? account.password : NO_ACCOUNT)
  return known && matches ? account.email : undefined
}
