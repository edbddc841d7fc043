/**
 * The app's connections to Redis, made one way: a request never waits on Redis down, and the
 * operator reads once a minute at most that it is. What a failure means is the caller's.
 */
import type { FastifyBaseLogger } from 'fastify'
import { Redis } from 'ioredis'

export const DEFAULT_WARN_INTERVAL_MS = 60_000

const REDIS_COMMAND_TIMEOUT_MS = 500
const REDIS_CONNECT_TIMEOUT_MS = 1_000

/** The first failure at once, later ones only after the interval, with how many went unsaid. */
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
  readonly down: string
  readonly back: string
  readonly warnIntervalMs?: number | undefined
}

export interface RedisConnection {
  readonly redis: Redis
  failed(error: unknown): void
  answered(): void
}

const connections = new Set<Redis>()

/** For the metrics: every Redis connection of this process ready; undefined when there is none. */
export function redisUp(): boolean | undefined {
  if (connections.size === 0) return undefined
  for (const redis of connections) if (redis.status !== 'ready') return false
  return true
}

/** Resolves once connected or given up on (about a second): Redis down at start is Redis down later. */
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
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
  })
  redis.on('error', failed)
  redis.on('ready', answered)
  connections.add(redis)
  redis.once('end', () => connections.delete(redis))
  await redis.connect().catch(failed)
  return { redis, failed, answered }
}
