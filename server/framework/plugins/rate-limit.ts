/**
 * Rate limits per client address (docs/decisions/015-rate-limits.md), with
 * @fastify/rate-limit: registered once at the root with no limit of its own, so that
 * only the routes that name a budget in `config.rateLimit` are counted (form posts,
 * server/framework/plugins/actions.ts; the monitoring tunnel, server/framework/plugins/monitoring-tunnel.ts).
 * Pages and assets are never counted.
 *
 * The address is `request.ip`: the peer, or what a trusted proxy says (TRUST_PROXY),
 * without a port a proxy may add; IPv6 addresses count per /64, as one client usually
 * holds a whole one (server/framework/client-address.ts).
 *
 * Counts are kept in this process, or with REDIS_URL in Redis, so that every instance
 * shares one budget. Redis failing never fails a request: a count that cannot be
 * made lets the request pass (`skipOnError`), commands give up quickly (no offline
 * queue, a short timeout), and the operator reads one warning per interval, not one
 * per request.
 *
 * Over budget, the app's error handler responds in the request kind's form: 429,
 * `Retry-After`, the `RateLimit-*` headers, code APP_ERR_RATE_LIMITED.
 */
import { createRequire } from 'node:module'
import fastifyRateLimit, { type FastifyRateLimitStoreCtor } from '@fastify/rate-limit'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Redis } from 'ioredis'
import { AppError, errors } from '../error-registry.js'
import { clientAddressKey } from '../client-address.js'
import { connectRedis } from '../redis-connection.js'
import type { RouteRateLimit } from '../route-rate-limit.js'

/** The route's budget, or undefined when the limit is off (`0`). */
export function routeRateLimit(max: number, windowMs: number): RouteRateLimit | undefined {
  return max > 0 ? { max, timeWindow: windowMs } : undefined
}

export interface RateLimitPluginOptions {
  /** REDIS_URL: keep the counts there, shared by every instance; in memory when undefined. */
  readonly redisUrl: string | undefined
  /** The least time between two warnings that Redis fails; a minute unless a test shortens it. */
  readonly warnIntervalMs?: number
}

/** Prefix of every key this app writes to Redis. */
export const REDIS_KEY_PREFIX = 'app-rate-limit:'

type Store = {
  incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number, max: number): void
  read?(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number, max: number): void
  child(routeOptions: unknown): Store
}
type RedisStoreConstructor = new (continueExceeding: boolean, exponentialBackoff: boolean, redis: Redis, nameSpace: string) => Store

// The package's own Redis store (its Lua script), which it does not export: wrapped
// below so that its failures reach the log, which the package swallows with skipOnError.
const RedisStore = createRequire(import.meta.url)('@fastify/rate-limit/store/RedisStore.js') as RedisStoreConstructor

/**
 * The store the library makes from its settings: the Redis one, keys under
 * REDIS_KEY_PREFIX, each failure reported to `onError` before the library skips it.
 */
function observedRedisStore(redis: Redis, onError: (error: Error) => void): FastifyRateLimitStoreCtor {
  return class {
    constructor(params: { continueExceeding?: boolean; exponentialBackoff?: boolean }) {
      const store = new RedisStore(params.continueExceeding ?? false, params.exponentialBackoff ?? false, redis, REDIS_KEY_PREFIX)
      // A constructor may return another object: the wrapper is what the library gets.
      return observed(store, onError)
    }
  } as unknown as FastifyRateLimitStoreCtor
}

/** A store whose failures are reported to `onError`, then passed on (and skipped). */
function observed(store: Store, onError: (error: Error) => void): Store {
  const report =
    (callback: Parameters<Store['incr']>[1]): Parameters<Store['incr']>[1] =>
    (error, result) => {
      if (error) onError(error)
      callback(error, result)
    }
  return {
    incr: (key, callback, timeWindow, max) => store.incr(key, report(callback), timeWindow, max),
    read: (key, callback, timeWindow, max) => store.read!(key, report(callback), timeWindow, max),
    child: (routeOptions) => observed(store.child(routeOptions), onError),
  }
}

async function rateLimitPlugin(fastify: FastifyInstance, opts: RateLimitPluginOptions) {
  let store: FastifyRateLimitStoreCtor | undefined
  if (opts.redisUrl) {
    const { redis, failed } = await connectRedis(opts.redisUrl, fastify.log.child({ component: 'rate-limit' }), {
      down: 'Redis is unreachable: rate limits are not enforced (requests pass) until it answers again',
      back: 'Redis answers again: rate limits are enforced',
      warnIntervalMs: opts.warnIntervalMs,
    })
    fastify.addHook('onClose', async () => redis.disconnect())
    store = observedRedisStore(redis, failed)
  }
  await fastify.register(fastifyRateLimit, {
    // Only the routes that name a budget are counted.
    global: false,
    ...(store ? { store } : {}),
    skipOnError: true,
    // The reported address without a port, IPv6 per /64 (server/framework/client-address.ts).
    keyGenerator: (request) => clientAddressKey(request.ip),
    // RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset and Retry-After.
    enableDraftSpec: true,
    errorResponseBuilder: (_request, context) => new AppError(errors.RATE_LIMITED(context.after)),
  })
}

export default fp(rateLimitPlugin, { name: 'rate-limit' })
