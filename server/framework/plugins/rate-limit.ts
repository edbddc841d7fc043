/**
 * Rate limits per client address (docs/decisions/015-rate-limits.md): only the routes that name a
 * budget in `config.rateLimit` are counted. Redis failing never fails a request: the count is skipped,
 * and the operator reads one warning per interval, not one per request.
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

export function routeRateLimit(max: number, windowMs: number): RouteRateLimit | undefined {
  return max > 0 ? { max, timeWindow: windowMs } : undefined
}

export interface RateLimitPluginOptions {
  readonly redisUrl: string | undefined
  /** A minute unless a test shortens it. */
  readonly warnIntervalMs?: number
}

export const REDIS_KEY_PREFIX = 'app-rate-limit:'

type Store = {
  incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number, max: number): void
  read?(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number, max: number): void
  child(routeOptions: unknown): Store
}
type RedisStoreConstructor = new (continueExceeding: boolean, exponentialBackoff: boolean, redis: Redis, nameSpace: string) => Store

// The package's own Redis store, which it does not export: wrapped so that its failures, which
// skipOnError swallows, reach the log.
const RedisStore = createRequire(import.meta.url)('@fastify/rate-limit/store/RedisStore.js') as RedisStoreConstructor

function observedRedisStore(redis: Redis, onError: (error: Error) => void): FastifyRateLimitStoreCtor {
  return class {
    constructor(params: { continueExceeding?: boolean; exponentialBackoff?: boolean }) {
      const store = new RedisStore(params.continueExceeding ?? false, params.exponentialBackoff ?? false, redis, REDIS_KEY_PREFIX)
      // A constructor may return another object: the wrapper is what the library gets.
      return observed(store, onError)
    }
  } as unknown as FastifyRateLimitStoreCtor
}

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
    global: false,
    ...(store ? { store } : {}),
    skipOnError: true,
    // IPv6 per /64, as one client usually holds a whole one.
    keyGenerator: (request) => clientAddressKey(request.ip),
    // RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset and Retry-After.
    enableDraftSpec: true,
    errorResponseBuilder: (request, context) => {
      request.server.metrics.rateLimited(request.routeOptions.config?.requestKind === 'monitoring' ? 'monitoring' : 'forms')
      return new AppError(errors.RATE_LIMITED(context.after))
    },
  })
}

export default fp(rateLimitPlugin, { name: 'rate-limit' })
