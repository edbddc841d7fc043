/**
 * Where sessions are kept when the cookie carries only an id (SESSION_STORE `memory` or
 * `redis`). A record's key is the SHA-256 of the id, so a dump of the store holds no
 * cookie anyone could send.
 *
 * Redis failing fails closed: a command that fails or takes over 0.5 s throws
 * `SessionsUnavailableError`, a 503 with `Retry-After` for every request kind; nothing
 * waits in an offline queue, and the log gets one warning a minute while it lasts.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import { AppError, errors } from './error-registry.js'
import { connectRedis } from './redis-connection.js'

export const SESSION_KEY_PREFIX = 'app-session:'

/** 32 random bytes, base64url. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/

export function newSessionId(): string {
  return randomBytes(32).toString('base64url')
}

/** An old sealed cookie is not: it is no session here. */
export function isSessionId(value: string): boolean {
  return SESSION_ID.test(value)
}

export function sessionKey(id: string): string {
  return SESSION_KEY_PREFIX + createHash('sha256').update(id).digest('base64url')
}

/** Times are milliseconds since the epoch. */
export interface StoredSession {
  /** The absolute timeout counts from here (kept across regenerate()). */
  readonly createdAt: number
  /** Last written; the idle timeout is the record's TTL. */
  readonly savedAt: number
  readonly data: Record<string, unknown>
}

export function parseStoredSession(value: string): StoredSession | undefined {
  try {
    const parsed = JSON.parse(value) as Partial<StoredSession> | null
    if (typeof parsed?.createdAt !== 'number' || typeof parsed.savedAt !== 'number') return undefined
    if (typeof parsed.data !== 'object' || parsed.data === null || Array.isArray(parsed.data)) return undefined
    return { createdAt: parsed.createdAt, savedAt: parsed.savedAt, data: parsed.data }
  } catch {
    return undefined
  }
}

export interface SaveOptions {
  /** True: only while a record is still there (one ended meanwhile stays ended); false: only where none is. */
  readonly existing: boolean
  /** A key deleted in the same step (the id a regenerated or restarted session had). */
  readonly replacing?: string
}

export interface SessionStore {
  read(key: string): Promise<{ readonly value: string; readonly ttlMs: number } | undefined>
  /** False when `existing` said otherwise. */
  save(key: string, value: string, ttlMs: number, options: SaveOptions): Promise<boolean>
  /** False when it is gone. */
  touch(key: string, ttlMs: number): Promise<boolean>
  remove(key: string): Promise<void>
  close(): Promise<void>
}

export const SESSIONS_RETRY_AFTER_S = 5

export class SessionsUnavailableError extends AppError {
  constructor(cause: unknown) {
    super(errors.SESSIONS_UNAVAILABLE())
    this.name = 'SessionsUnavailableError'
    this.cause = cause
  }
}

/**
 * For one instance (development). Expired records go when next read and in a sweep every
 * thousand writes; past `maxSessions`, the least recently written go first.
 */
export function memoryStore(clock: () => number, maxSessions = 100_000): SessionStore {
  const records = new Map<string, { value: string; expiresAt: number }>()
  let writes = 0
  const live = (key: string) => {
    const record = records.get(key)
    if (record && record.expiresAt <= clock()) records.delete(key)
    else return record
    return undefined
  }
  const sweep = () => {
    const now = clock()
    for (const [key, record] of records) if (record.expiresAt <= now) records.delete(key)
  }
  return {
    read: async (key) => {
      const record = live(key)
      return record && { value: record.value, ttlMs: record.expiresAt - clock() }
    },
    save: async (key, value, ttlMs, { existing, replacing }) => {
      if (replacing !== undefined) records.delete(replacing)
      if ((live(key) !== undefined) !== existing) return false
      records.delete(key) // set again below, last: the map's order is the order of writes
      records.set(key, { value, expiresAt: clock() + ttlMs })
      if (++writes % 1000 === 0) sweep()
      for (const oldest of records.keys()) {
        if (records.size <= maxSessions) break
        records.delete(oldest)
      }
      return true
    },
    touch: async (key, ttlMs) => {
      const record = live(key)
      if (record) record.expiresAt = clock() + ttlMs
      return record !== undefined
    },
    remove: async (key) => void records.delete(key),
    close: async () => records.clear(),
  }
}

export const REDIS_DOWN_WARNING = 'Redis is unreachable: requests that carry or start a session answer 503 until it answers again'
export const REDIS_BACK_INFO = 'Redis answers again: sessions work'

/** Connects before it resolves, or gives up after a second: Redis down at start is the same as down later. */
export async function redisStore(
  url: string,
  log: FastifyBaseLogger,
  warnIntervalMs?: number,
  onFailure: () => void = () => {},
): Promise<SessionStore> {
  const { redis, failed, answered } = await connectRedis(url, log, { down: REDIS_DOWN_WARNING, back: REDIS_BACK_INFO, warnIntervalMs })
  const call = async <T>(command: () => Promise<T>): Promise<T> => {
    try {
      const result = await command()
      answered()
      return result
    } catch (error) {
      failed(error)
      onFailure()
      throw new SessionsUnavailableError(error)
    }
  }
  const replies = (results: Array<[Error | null, unknown]> | null): unknown[] => {
    if (!results) throw new Error('the transaction was aborted')
    return results.map(([error, reply]) => {
      if (error) throw error
      return reply
    })
  }
  return {
    read: (key) =>
      call(async () => {
        const [value, ttlMs] = replies(await redis.multi().get(key).pttl(key).exec()) as [string | null, number]
        return value === null ? undefined : { value, ttlMs }
      }),
    save: (key, value, ttlMs, { existing, replacing }) =>
      call(async () => {
        const ttl = Math.max(1, Math.ceil(ttlMs))
        if (replacing === undefined) {
          const reply = existing ? await redis.set(key, value, 'PX', ttl, 'XX') : await redis.set(key, value, 'PX', ttl, 'NX')
          return reply === 'OK'
        }
        // One step: the new record is there exactly when the old one is gone.
        const transaction = redis.multi().del(replacing)
        if (existing) transaction.set(key, value, 'PX', ttl, 'XX')
        else transaction.set(key, value, 'PX', ttl, 'NX')
        return replies(await transaction.exec())[1] === 'OK'
      }),
    touch: (key, ttlMs) => call(async () => (await redis.pexpire(key, Math.max(1, Math.ceil(ttlMs)))) === 1),
    remove: (key) => call(async () => void (await redis.del(key))),
    close: async () => redis.disconnect(),
  }
}
