/**
 * Sessions (docs/guide/sessions.md, docs/decisions/031-session-stores.md), kept where
 * SESSION_STORE says:
 *
 * - `cookie` (the default): the whole session in an encrypted cookie
 *   (@fastify/secure-session, libsodium's secretbox), so an instance needs no store and
 *   any instance with the key reads any session. The key is derived from SESSION_SECRET;
 *   SESSION_SECRET_PREVIOUS is still accepted for reading, so a new secret can be rolled
 *   out without logging everyone out (a session opened with the old key is sealed again
 *   with the new one on that answer). Without a secret the server makes a random key at
 *   start: sessions then end with the process and are not shared between instances (a
 *   warning says so). A copy of the cookie lives as long as the original: the server
 *   cannot end it, only the lifetimes bound it.
 * - `memory` or `redis` (./session-stores.ts): the cookie carries a random id only and the
 *   data is kept on the server, so `end()` and `regenerate()` end every copy of the
 *   cookie at once and a flash message taken is gone for good.
 *
 * In every mode a session is over once unused for SESSION_IDLE_TIMEOUT or older than
 * SESSION_ABSOLUTE_TIMEOUT, however much it is used. A session is opened only when a
 * request needs it: a store is read only for a request that carries a session cookie,
 * by `ready()`, and written, only when something changed (or its lifetime is due to be
 * extended), by `applyTo()`.
 */
import { createHash, randomBytes } from 'node:crypto'
import type {} from '@fastify/cookie'
import fastifySecureSession from '@fastify/secure-session'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { SessionConfig } from './config.js'
import { isHttps } from './request-scheme.js'
import {
  isSessionId,
  memoryStore,
  newSessionId,
  parseStoredSession,
  redisStore,
  sessionKey,
  SessionsUnavailableError,
  SESSIONS_RETRY_AFTER_S,
  type SessionStore,
  type StoredSession,
} from './session-stores.js'

/** The session cookie's name. */
export const SESSION_COOKIE = 'session'

const FLASH_KEY = '__flash'
/** In a sealed cookie: when the session started and was last used (milliseconds). */
const CREATED_KEY = '__created'
const USED_KEY = '__used'
/** The library's own: when it last sealed the cookie (seconds). */
const SEALED_AT_KEY = '__ts'

/** How long sessions last, in milliseconds. */
export interface SessionLifetimes {
  /** Unused for this long, a session is over. */
  readonly idleMs: number
  /** This old, a session is over however much it is used. */
  readonly absoluteMs: number
}

/**
 * How long a session is used before its lifetime is extended (its cookie sealed again,
 * its record's TTL set again) when nothing else changed: at most once a minute, or every
 * tenth of the idle timeout when that is shorter. Reads stay reads; a session may end
 * that much before a full idle timeout after its last use.
 */
export function refreshAfterMs(lifetimes: SessionLifetimes): number {
  return Math.min(60_000, lifetimes.idleMs / 10)
}

/** The keys to seal sessions with (the first) and to open them with (all): one per secret. */
export function sessionKeys(secrets: readonly string[]): Buffer[] {
  return secrets.length > 0 ? secrets.map((secret) => createHash('sha256').update(secret).digest()) : [randomBytes(32)]
}

export const UNSET_SECRET_WARNING =
  'SESSION_SECRET is unset: sessions are sealed with a key made at start, so they end when this process does and ' +
  'are not shared between instances. Set SESSION_SECRET (at least 32 characters) from a secret.'

export const MEMORY_STORE_WARNING =
  'SESSION_STORE is memory: sessions are kept in this process, so they end when it does and are not shared between ' +
  'instances. Use SESSION_STORE=redis with more than one instance.'

/** What loaders and actions do with the visitor's session. */
export interface SessionControl {
  get(key: string): unknown
  /** Keys starting with `__` are the framework's. */
  set(key: string, value: unknown): void
  /**
   * Ends the session: its data is gone and its cookie expired; with a store, every copy
   * of the cookie is dead at once. Something set afterwards starts a new session.
   */
  end(): void
  /**
   * Gives the session a new identity, keeping its data, and starts its lifetimes again:
   * call it when the visitor signs in, so an identity planted before (session fixation)
   * is not the signed-in one. With a store, the old id is dead at once; a sealed cookie
   * has no identity to change and is only sealed again.
   */
  regenerate(): void
  /** A message for the next page the visitor sees, once. */
  flash(message: string): void
  /** The message flashed before, taken out: the page after shows it, the next one does not. */
  takeFlash(): string | undefined
}

/** A sealed session as its cookie holds it. */
interface SealedSession {
  readonly data: Record<string, unknown>
  readonly createdAt: number
  readonly usedAt: number
}

/** Seals and opens session cookies (@fastify/secure-session's functions, without its per-request hooks). */
export interface SessionCodec {
  /** The session a cookie holds; null when it is none of ours (tampered, another key). `rotated`: opened with a previous key. */
  decode(cookie: string, log: FastifyRequest['log']): { readonly session: SealedSession; readonly rotated: boolean } | null
  encode(session: SealedSession): string
}

/** A request's session, opened on first use only (a page that never asks costs nothing). */
export interface RequestSession {
  readonly control: SessionControl
  /** True once what the browser holds or sees of the session changes (set, ended, a flash message taken, its cookie sealed again). */
  readonly changed: boolean
  /** Reads what the session needs before it is used (a store's record, when the request carries a cookie); once per request. */
  ready(): Promise<void>
  /** Saves the session where it changed, and sets or expires its cookie. */
  applyTo(reply: FastifyReply): Promise<void>
}

/** The app's sessions (`app.sessions`): each request's, in the configured store. */
export interface Sessions {
  open(request: FastifyRequest): RequestSession
}

/**
 * The most bytes of name and value a browser keeps in one cookie (RFC 6265bis): a
 * larger cookie is dropped without a word, and the session with it.
 */
export const MAX_COOKIE_BYTES = 4096

/** A session's data and when it started, as a request holds it. */
interface Held {
  data: Record<string, unknown>
  createdAt: number
}

function checkKey(key: string): void {
  if (key === FLASH_KEY) throw new TypeError('Use flash() for the flash message')
  if (key.startsWith('__')) throw new TypeError(`Session keys starting with __ are the framework's: ${JSON.stringify(key)}`)
}

const isEmpty = (data: Record<string, unknown>) => Object.values(data).every((value) => value === undefined)

/** The cookie's attributes; `maxAge` in seconds. */
function cookieOptions(request: FastifyRequest) {
  return { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: isHttps(request) }
}

function expireCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.setCookie(SESSION_COOKIE, '', { ...cookieOptions(request), expires: new Date(0), maxAge: 0 })
}

/** What is left of a session's lifetime at `now`: the idle timeout, or less where the absolute one comes first. */
function remainingMs(createdAt: number, now: number, lifetimes: SessionLifetimes): number {
  return Math.min(lifetimes.idleMs, createdAt + lifetimes.absoluteMs - now)
}

/** The session a cookie sealed: the whole session is in it. */
function sealedSession(request: FastifyRequest, codec: SessionCodec, lifetimes: SessionLifetimes, clock: () => number): RequestSession {
  let held: Held | undefined
  /** When the session read from the cookie (or last sealed in this answer) was last used; undefined for none. */
  let usedAt: number | undefined
  let rotated = false
  /** Changed in this request (what `changed` says); `dirty`: since the cookie was last set on the answer. */
  let changed = false
  let dirty = false
  /** The session as last sealed, while nothing has changed it since: the cookie's value. */
  let sealed: string | undefined
  /** Whether the browser holds a session cookie, as far as this answer says. */
  let browserHasCookie = Boolean(request.cookies[SESSION_COOKIE])
  const open = (): Held => {
    if (held) return held
    const now = clock()
    const cookie = request.cookies[SESSION_COOKIE]
    const opened = cookie ? codec.decode(cookie, request.log) : null
    const session = opened?.session
    // Too old, or unused for too long: no session (a copied cookie, a forgotten tab).
    if (session && now - session.createdAt < lifetimes.absoluteMs && now - session.usedAt < lifetimes.idleMs) {
      held = { data: session.data, createdAt: session.createdAt }
      usedAt = session.usedAt
      rotated = opened.rotated
    } else {
      held = { data: {}, createdAt: now }
    }
    return held
  }
  const seal = (session: Held) => codec.encode({ data: session.data, createdAt: session.createdAt, usedAt: clock() })
  const change = () => {
    changed = true
    dirty = true
  }
  /**
   * Sets `key`, or fails where it was set (the action's own error, with its digest)
   * when the sealed session would be a cookie no browser keeps; the value is not kept.
   */
  const setChecked = (key: string, value: unknown) => {
    const opened = open()
    const before = opened.data[key]
    opened.data[key] = value
    const candidate = seal(opened)
    const bytes = SESSION_COOKIE.length + 1 + encodeURIComponent(candidate).length
    if (bytes <= MAX_COOKIE_BYTES) {
      sealed = candidate
      change()
      return
    }
    opened.data[key] = before // as it was: what was sealed before still stands for it
    throw new RangeError(
      `The session would be a cookie of ${bytes} bytes, and browsers drop cookies over ${MAX_COOKIE_BYTES}: ` +
        'keep less in it (an id, with the data kept elsewhere).',
    )
  }
  /** Sealed again though nothing changed: opened with a previous key, or used after a while. */
  const dueForSealing = () =>
    held !== undefined && usedAt !== undefined && (rotated || clock() - usedAt >= refreshAfterMs(lifetimes)) && !isEmpty(held.data)
  let resealed = false
  const control: SessionControl = {
    get: (key) => (key === FLASH_KEY ? undefined : open().data[key]),
    set: (key, value) => {
      checkKey(key)
      setChecked(key, value)
    },
    end: () => {
      open()
      held = { data: {}, createdAt: clock() }
      usedAt = undefined
      sealed = undefined
      change()
    },
    // A sealed cookie has no identity to change: sealing it again (a new nonce) is all this mode can do.
    regenerate: () => {
      open().createdAt = clock()
      sealed = undefined
      change()
    },
    flash: (message) => setChecked(FLASH_KEY, message),
    takeFlash: () => {
      const message = open().data[FLASH_KEY]
      if (message === undefined) return undefined
      delete held!.data[FLASH_KEY]
      sealed = undefined
      change()
      return typeof message === 'string' ? message : undefined
    },
  }
  return {
    control,
    get changed() {
      return changed || resealed || dueForSealing()
    },
    ready: () => Promise.resolve(),
    // Again on the same answer (an action's, then its page's; a handler's, then onSend's): only what changed since.
    async applyTo(reply) {
      // A HEAD (a link checker, a preview bot) sees the page but takes nothing from the
      // session: the flash it read is still there for the GET that shows it.
      if (!held || request.method === 'HEAD') return
      if (!dirty && !dueForSealing()) return
      resealed ||= !dirty
      dirty = false
      // Nothing in it: no session, and no cookie.
      if (isEmpty(held.data)) {
        if (browserHasCookie) expireCookie(request, reply)
        browserHasCookie = false
        usedAt = undefined
        return
      }
      const now = clock()
      const maxAge = Math.ceil(remainingMs(held.createdAt, now, lifetimes) / 1000)
      reply.setCookie(SESSION_COOKIE, sealed ?? seal(held), { ...cookieOptions(request), maxAge })
      browserHasCookie = true
      usedAt = now
      rotated = false
    },
  }
}

/** A session kept in a store, its cookie carrying its id alone. */
function storedSession(request: FastifyRequest, store: SessionStore, lifetimes: SessionLifetimes, clock: () => number): RequestSession {
  const cookie = request.cookies[SESSION_COOKIE] || undefined
  let reading: Promise<void> | undefined
  let read = false
  /** The live session: its id and what is stored of it (as read, or as this request saved it). */
  let found: { readonly id: string; readonly record: StoredSession; readonly ttlMs: number } | undefined
  let held: Held | undefined
  /** Changed in this request (what `changed` says); `dirty`: since it was last saved. */
  let changed = false
  let dirty = false
  /** end() or regenerate(): what is kept from now on goes under a new id. */
  let newId = false
  /** The id the browser holds, as far as this answer says. */
  let browserId = cookie
  /** A save failed: the answer going out is its 503, and nothing is tried again for it. */
  let failed = false
  /**
   * The store did not answer the read: thrown where the session is first used (a 503),
   * so a page that does not use it is still served.
   */
  let unavailable: SessionsUnavailableError | undefined
  const open = (): Held => {
    if (unavailable) throw unavailable
    if (!read) throw new Error('The session has not been read: openResponse(request) reads it before loaders and actions run')
    held ??= found ? { data: { ...found.record.data }, createdAt: found.record.createdAt } : { data: {}, createdAt: clock() }
    return held
  }
  const change = () => {
    changed = true
    dirty = true
  }
  const setValue = (key: string, value: unknown) => {
    // What the store cannot keep fails here, in the action, not once the answer is on its way.
    if (value !== undefined) JSON.stringify(value)
    open().data[key] = value
    change()
  }
  /** A cookie that names no live session (ended, expired, from another mode): expired, so it is not read again. */
  const stale = () => read && cookie !== undefined && browserId === cookie && found === undefined
  const dropCookie = (reply: FastifyReply) => {
    if (browserId !== undefined) expireCookie(request, reply)
    browserId = undefined
  }
  const control: SessionControl = {
    get: (key) => (key === FLASH_KEY ? undefined : open().data[key]),
    set: (key, value) => {
      checkKey(key)
      setValue(key, value)
    },
    end: () => {
      open()
      held = { data: {}, createdAt: clock() }
      newId = true
      change()
    },
    regenerate: () => {
      open().createdAt = clock()
      newId = true
      change()
    },
    flash: (message) => setValue(FLASH_KEY, message),
    takeFlash: () => {
      const message = open().data[FLASH_KEY]
      if (message === undefined) return undefined
      // Taken on the server: an older copy of the cookie cannot bring it back.
      delete held!.data[FLASH_KEY]
      change()
      return typeof message === 'string' ? message : undefined
    },
  }
  /** Saves what changed since the last save, and says so to the browser where its cookie changes. */
  const save = async (reply: FastifyReply) => {
    const now = clock()
    const key = found && sessionKey(found.id)
    if (!dirty) {
      if (stale()) dropCookie(reply)
      // Used: its idle timeout starts again, though not on every read (one write a minute at most).
      else if (found && found.ttlMs < remainingMs(found.record.createdAt, now, lifetimes) - refreshAfterMs(lifetimes)) {
        const ttlMs = remainingMs(found.record.createdAt, now, lifetimes)
        await store.touch(key!, ttlMs)
        found = { ...found, ttlMs }
      }
      return
    }
    const session = open()
    if (isEmpty(session.data)) {
      // Nothing in it: no session, on the server nor in the browser.
      if (key) await store.remove(key)
      found = undefined
      dropCookie(reply)
    } else {
      const record: StoredSession = { createdAt: session.createdAt, savedAt: now, data: session.data }
      const value = JSON.stringify(record)
      const ttlMs = remainingMs(session.createdAt, now, lifetimes)
      if (key && !newId) {
        // Only while it is still there: a session ended meanwhile (signed out elsewhere) stays ended.
        const kept = await store.save(key, value, ttlMs, { existing: true })
        found = kept ? { id: found!.id, record, ttlMs } : undefined
        if (!kept) dropCookie(reply)
      } else {
        const id = newSessionId()
        await store.save(sessionKey(id), value, ttlMs, { existing: false, ...(key ? { replacing: key } : {}) })
        found = { id, record, ttlMs }
        browserId = id
        const maxAge = Math.ceil((session.createdAt + lifetimes.absoluteMs - now) / 1000)
        reply.setCookie(SESSION_COOKIE, id, { ...cookieOptions(request), maxAge })
      }
    }
    dirty = false
    newId = false
  }
  return {
    control,
    get changed() {
      return changed || (cookie !== undefined && read && found === undefined)
    },
    ready() {
      reading ??= (async () => {
        // No cookie, no session: nothing to read (most requests, every public page's).
        if (cookie !== undefined && isSessionId(cookie)) {
          try {
            const stored = await store.read(sessionKey(cookie))
            const record = stored && parseStoredSession(stored.value)
            const now = clock()
            if (record && stored && now - record.createdAt < lifetimes.absoluteMs) found = { id: cookie, record, ttlMs: stored.ttlMs }
          } catch (error) {
            if (!(error instanceof SessionsUnavailableError)) throw error
            unavailable = error
            markUnavailable(request)
          }
        }
        read = true
      })()
      return reading
    },
    // Again on the same answer (an action's, then its page's; a handler's, then onSend's): only what changed since.
    async applyTo(reply) {
      // Unread, unreadable (whoever used it got the 503), or a HEAD: nothing to save.
      if (!read || failed || unavailable || request.method === 'HEAD') return
      try {
        await save(reply)
      } catch (error) {
        failed = true
        throw error
      }
    },
  }
}

/** Requests whose session the store could not read. */
const unreadable = new WeakSet<FastifyRequest>()

function markUnavailable(request: FastifyRequest): void {
  unreadable.add(request)
}

export interface SessionsOptions {
  readonly config: SessionConfig
  /** SESSION_SECRET, then SESSION_SECRET_PREVIOUS (the cookie store only). */
  readonly secrets: readonly string[]
  /** The time sessions are measured by: Date.now unless a test moves it. */
  readonly clock?: () => number
  /** The least time between two warnings that Redis fails; a minute unless a test shortens it. */
  readonly warnIntervalMs?: number
}

/**
 * The app's sessions, as `app.sessions`. For the sealed cookie: @fastify/secure-session's
 * sealing without its hooks (which would open and seal a session on every request,
 * assets and cached pages included), registered in a context of its own that has no
 * routes, its functions borrowed. For a store: the store, opened with the app and closed
 * with it. Either way a session is opened only when a loader or action uses it.
 */
export function registerSessions(app: FastifyInstance, options: SessionsOptions): void {
  const { config, secrets } = options
  const clock = options.clock ?? Date.now
  const lifetimes: SessionLifetimes = { idleMs: config.idleTimeoutS * 1000, absoluteMs: config.absoluteTimeoutS * 1000 }
  let open: Sessions['open'] = () => {
    throw new Error('sessions are not ready')
  }
  app.decorate('sessions', { open: (request: FastifyRequest) => open(request) } satisfies Sessions)
  // The answer to a session that cannot be read or saved says when to try again, whichever surface answers it
  // (a loader's or a guard's 503 is an answer, not an error Fastify sees: marked when the read failed).
  app.addHook('onError', async (_request, reply, error) => {
    if (error instanceof SessionsUnavailableError) reply.header('retry-after', String(SESSIONS_RETRY_AFTER_S))
  })
  app.addHook('onSend', async (request, reply) => {
    if (reply.statusCode === 503 && unreadable.has(request)) reply.header('retry-after', String(SESSIONS_RETRY_AFTER_S))
  })
  const { store } = config
  if (store.kind === 'cookie') {
    if (secrets.length === 0) app.log.warn(UNSET_SECRET_WARNING)
    app.register(async function sealSessions(scope) {
      // The library's own expiry (from its last sealing, by the real clock) only backs ours up.
      const expiry = Math.max(config.idleTimeoutS, config.absoluteTimeoutS) + 60
      await scope.register(fastifySecureSession, { key: sessionKeys(secrets), cookieName: SESSION_COOKIE, expiry })
      const codec: SessionCodec = {
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
      open = (request) => sealedSession(request, codec, lifetimes, clock)
    })
    return
  }
  if (store.kind === 'memory') app.log.warn(MEMORY_STORE_WARNING)
  app.register(async function keepSessions(scope) {
    const kept =
      store.kind === 'memory' ? memoryStore(clock) : await redisStore(store.url, app.log.child({ component: 'sessions' }), options.warnIntervalMs)
    scope.addHook('onClose', async () => kept.close())
    open = (request) => storedSession(request, kept, lifetimes, clock)
  })
}
