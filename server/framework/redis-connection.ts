/**
 * The app's connections to Redis (rate limits, sessions), made one way: short timeouts,
 * no offline queue (a command fails at once while Redis is down, never waits), endless
 * reconnects at most every 2 s, started without waiting for ever (Redis down at start
 * is Redis down later), and its failures said once a minute at most, with a line when
 * it answers again. What a failure means is the caller's: rate limits let requests pass,
 * sessions answer 503.
 */
import type { FastifyBaseLogger } from 'fastify'
import { Redis } from 'ioredis'

export const DEFAULT_WARN_INTERVAL_MS = 60_000

/** How long a Redis command may take before the request goes on without it (or is refused). */
const REDIS_COMMAND_TIMEOUT_MS = 500
const REDIS_CONNECT_TIMEOUT_MS = 1_000

/**
 * A logger of one failure that says it at most once per `intervalMs`: the first
 * failure at once, later ones only after the interval, with how many went unsaid.
 */
export function throttledWarning(
  log: FastifyBaseLogger,
  message: string,
  intervalMs: number,
  now: () => number = Date.now,
): (error: unknown) => void {
  let lastAt: number | undefined
  let unsaid = 0
  return (error) => {
    const at = now()
    if (lastAt !== undefined && at - lastAt < intervalMs) {
      unsaid++
      return
    }
    log.warn({ err: error, failuresSinceLastWarning: unsaid }, message)
    lastAt = at
    unsaid = 0
  }
}

export interface RedisWords {
  /** The warning while Redis fails (once per interval). */
  readonly down: string
  /** The info line when it answers again. */
  readonly back: string
  readonly warnIntervalMs?: number | undefined
}

export interface RedisConnection {
  readonly redis: Redis
  /** Says a failure (throttled); the next answer says Redis is back. */
  failed(error: unknown): void
  /** Says Redis answers again, if it had failed. */
  answered(): void
}

/** Connects to Redis at `url`, resolving once connected or given up on (about a second). */
export async function connectRedis(url: string, log: FastifyBaseLogger, words: RedisWords): Promise<RedisConnection> {
  const warn = throttledWarning(log, words.down, words.warnIntervalMs ?? DEFAULT_WARN_INTERVAL_MS)
  let failing = false
  const failed = (error: unknown) => {
    failing = true
    warn(error)
  }
  const answered = () => {
    if (failing) log.info(words.back)
    failing = false
  }
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    // While disconnected, a command fails at once instead of waiting in a queue.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    // Reconnects for ever, at most every 2 s.
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
  })
  // Connection errors (every reconnect attempt) go to the same throttled warning.
  redis.on('error', failed)
  redis.on('ready', answered)
  await redis.connect().catch(failed)
  return { redis, failed, answered }
}
