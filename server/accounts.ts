/**
 * The demo's accounts: from DEMO_ACCOUNT (`email:password` pairs, hashed at start; server/config.ts). When
 * it is unset, the demo account `demo@example.com` / `demo-password` exists only on a
 * server that nothing but this machine can reach: HOST a loopback address, no proxy
 * trusted (TRUST_PROXY off) and ALLOWED_HOSTS unset (so a request must name a loopback
 * host too). Behind a proxy on the same machine, or on any other address, no fixed
 * credential signs in.
 */
import type { FastifyRequest } from 'fastify'
import { isIP } from 'node:net'
import { ACCOUNT_MESSAGE, config as productConfig, type ConfiguredAccount } from './config.js'
import { markServerOnly, passwordHashOf, unmatchedPasswordHash, verifyPassword, type PasswordHash } from './framework/index.js'

export const DEMO_EMAIL = 'demo@example.com'
export const DEMO_PASSWORD = 'demo-password'

/**
 * DEMO_PASSWORD's scrypt hash, made once (`hashPasswordSync`) and kept here: the password is
 * public, and every start (each test's server among them) would otherwise spend a check's
 * CPU on it. Server-only, as a configured account is (server/config.ts).
 */
const DEMO_ACCOUNTS: readonly ConfiguredAccount[] = [
  markServerOnly(
    {
      email: DEMO_EMAIL,
      password: passwordHashOf('8d7be2d290589ebe38c5416c501cb682', 'ebf3a6382f4ccbbb1d07469e75a694d5927e4fa7c1f87ce2d0866e0ecd9bedc7'),
    },
    ACCOUNT_MESSAGE,
  ),
]

/** Checked against when no account has the email, so a wrong email takes as long as a wrong password. */
const NO_ACCOUNT: PasswordHash = unmatchedPasswordHash()

function isLoopback(host: string): boolean {
  if (host === 'localhost') return true
  if (isIP(host) === 4) return host.startsWith('127.')
  return host === '::1'
}

/** True when only this machine reaches the server directly: no proxy in front, no public host name. */
export function onlyThisMachine(config: Pick<FastifyRequest['server']['config'], 'host' | 'trustProxy' | 'allowedHosts'>): boolean {
  return isLoopback(config.host) && config.trustProxy === false && config.allowedHosts === undefined
}

export async function checkCredentials(request: FastifyRequest, email: string, password: string): Promise<string | undefined> {
  const { config } = request.server
  const accounts: readonly ConfiguredAccount[] = productConfig.of(request).DEMO_ACCOUNT ?? (onlyThisMachine(config) ? DEMO_ACCOUNTS : [])
  const wanted = email.trim().toLowerCase()
  const account = accounts.find((candidate) => candidate.email === wanted)
  const known = account !== undefined
  const matches = await verifyPassword(password, known ? account.password : NO_ACCOUNT)
  return known && matches ? account.email : undefined
}
