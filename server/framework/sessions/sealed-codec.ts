/**
 * The sealed cookie's codec: @fastify/secure-session's sealing without its hooks (which
 * would open and seal a session on every request, assets included), registered in a
 * context with no routes. SESSION_SECRET_PREVIOUS still opens sessions, so a new secret
 * rolls out without logging everyone out (the session is sealed again with the new key).
 */
import { createHash, randomBytes } from 'node:crypto'
import fastifySecureSession from '@fastify/secure-session'
import type { FastifyInstance } from 'fastify'
import type { SessionConfig } from '../config.js'
import { SESSION_COOKIE } from './cookie.js'
import type { SessionCodec } from './sealed.js'

/** In a sealed cookie: when the session started and was last used (milliseconds). */
const CREATED_KEY = '__created'
const USED_KEY = '__used'
/** The library's own: when it last sealed the cookie (seconds). */
const SEALED_AT_KEY = '__ts'

/** The first seals; all open. */
export function sessionKeys(secrets: readonly string[]): Buffer[] {
  return secrets.length > 0 ? secrets.map((secret) => createHash('sha256').update(secret).digest()) : [randomBytes(32)]
}

export const UNSET_SECRET_WARNING =
  'SESSION_SECRET is unset: sessions are sealed with a key made at start, so they end when this process does and ' +
  'are not shared between instances. Set SESSION_SECRET (at least 32 characters) from a secret.'

export async function registerSealingCodec(scope: FastifyInstance, config: SessionConfig, secrets: readonly string[]): Promise<SessionCodec> {
  // The library's own expiry (from its last sealing, by the real clock) only backs ours up.
  const expiry = Math.max(config.idleTimeoutS, config.absoluteTimeoutS) + 60
  await scope.register(fastifySecureSession, { key: sessionKeys(secrets), cookieName: SESSION_COOKIE, expiry })
  return {
    decode: (cookie, log) => {
      const session = scope.decodeSecureSession(cookie, log)
      if (!session) return null
      const { [CREATED_KEY]: createdAt, [USED_KEY]: usedAt, ...data } = session.data() as Record<string, unknown>
      // A cookie sealed before the lifetimes were kept in it: as old as its last sealing.
      const since = Number(session.get(SEALED_AT_KEY)) * 1000
      return {
        session: {
          data,
          createdAt: typeof createdAt === 'number' ? createdAt : since,
          usedAt: typeof usedAt === 'number' ? usedAt : since,
        },
        rotated: session.changed,
      }
    },
    encode: ({ data, createdAt, usedAt }) =>
      scope.encodeSecureSession(scope.createSecureSession({ ...data, [CREATED_KEY]: createdAt, [USED_KEY]: usedAt })),
  }
}
