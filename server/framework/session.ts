/**
 * Sessions (docs/guide/sessions.md, docs/decisions/031-session-stores.md), kept where
 * SESSION_STORE says:
 *
 * - `cookie` (the default): the whole session in an encrypted cookie (./sessions/sealed.ts),
 *   so no store is needed. A copy of the cookie lives as long as the original: the server
 *   cannot end it, only the lifetimes bound it.
 * - `memory` or `redis` (./sessions/stored.ts): the cookie carries a random id only, so
 *   `end()` and `regenerate()` end every copy of the cookie at once.
 *
 * A store is read only for a request that carries a session cookie, and written only when
 * something changed or the lifetime is due to be extended.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { SessionConfig } from './config.js'
import { memoryStore, redisStore, SessionsUnavailableError, SESSIONS_RETRY_AFTER_S } from './session-stores.js'
import type { SessionLifetimes } from './sessions/lifetimes.js'
import { sealedSession } from './sessions/sealed.js'
import { registerSealingCodec, UNSET_SECRET_WARNING } from './sessions/sealed-codec.js'
import { sessionUnreadable, storedSession } from './sessions/stored.js'
import type { Sessions } from './sessions/types.js'

export { SESSION_COOKIE } from './sessions/cookie.js'
export { sessionKeys } from './sessions/sealed-codec.js'
export type { RequestSession, SessionControl, Sessions } from './sessions/types.js'

export const MEMORY_STORE_WARNING =
  'SESSION_STORE is memory: sessions are kept in this process, so they end when it does and are not shared between ' +
  'instances. Use SESSION_STORE=redis with more than one instance.'

export interface SessionsOptions {
  readonly config: SessionConfig
  /** SESSION_SECRET, then SESSION_SECRET_PREVIOUS (the cookie store only). */
  readonly secrets: readonly string[]
  /** Date.now unless a test moves it. */
  readonly clock?: () => number
  /** The least time between two warnings that Redis fails. */
  readonly warnIntervalMs?: number
}

/** `app.sessions`: a session is opened only when a loader, guard or action uses it. */
export function registerSessions(app: FastifyInstance, options: SessionsOptions): void {
  const { config, secrets } = options
  const clock = options.clock ?? Date.now
  const lifetimes: SessionLifetimes = { idleMs: config.idleTimeoutS * 1000, absoluteMs: config.absoluteTimeoutS * 1000 }
  let open: Sessions['open'] = () => {
    throw new Error('sessions are not ready')
  }
  app.decorate('sessions', { open: (request: FastifyRequest) => open(request) } satisfies Sessions)
  // A session store that fails gets Retry-After, whatever the request kind (a loader's or guard's
  // 503 is a response, not an error Fastify sees: marked when the read failed). The sealed
  // cookie never fails. Callback hooks, as they run on every response.
  const { store } = config
  if (store.kind !== 'cookie') {
    app.addHook('onError', function sayWhenToRetry(_request, reply, error, done) {
      if (error instanceof SessionsUnavailableError) reply.header('retry-after', String(SESSIONS_RETRY_AFTER_S))
      done()
    })
    app.addHook('onSend', function sayWhenToRetryUnread(request, reply, payload, done) {
      if (reply.statusCode === 503 && sessionUnreadable(request)) reply.header('retry-after', String(SESSIONS_RETRY_AFTER_S))
      done(null, payload)
    })
  }
  if (store.kind === 'cookie') {
    if (secrets.length === 0) app.log.warn(UNSET_SECRET_WARNING)
    app.register(async function sealSessions(scope) {
      const codec = await registerSealingCodec(scope, config, secrets)
      open = (request) => sealedSession(request, codec, lifetimes, clock)
    })
    return
  }
  if (store.kind === 'memory') app.log.warn(MEMORY_STORE_WARNING)
  app.register(async function keepSessions(scope) {
    const kept =
      store.kind === 'memory'
        ? memoryStore(clock)
        : await redisStore(store.url, app.log.child({ component: 'sessions' }), options.warnIntervalMs, () => app.metrics.sessionStoreError())
    scope.addHook('onClose', async () => kept.close())
    open = (request) => storedSession(request, kept, lifetimes, clock)
  })
}
