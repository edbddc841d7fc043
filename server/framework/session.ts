/**
 * Sessions: an encrypted cookie (@fastify/secure-session, libsodium's secretbox), so an
 * instance needs no store and any instance with the key reads any session. The key is
 * derived from SESSION_SECRET; SESSION_SECRET_PREVIOUS is still accepted for reading,
 * so a new secret can be rolled out without logging everyone out (a session opened
 * with the old key is sealed again with the new one on that answer). Without a secret the
 * server makes a random key at start: sessions then end with the process and are not
 * shared between instances (a warning says so).
 */
import { createHash, randomBytes } from 'node:crypto'
import type {} from '@fastify/cookie'
import fastifySecureSession from '@fastify/secure-session'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isHttps } from './request-scheme.js'

/** The session cookie's name. */
export const SESSION_COOKIE = 'session'

/** How long a session lasts without being written: 14 days. */
export const SESSION_MAX_AGE_S = 14 * 24 * 60 * 60

const FLASH_KEY = '__flash'

/** The keys to seal sessions with (the first) and to open them with (all): one per secret. */
export function sessionKeys(secrets: readonly string[]): Buffer[] {
  return secrets.length > 0 ? secrets.map((secret) => createHash('sha256').update(secret).digest()) : [randomBytes(32)]
}

export const UNSET_SECRET_WARNING =
  'SESSION_SECRET is unset: sessions are sealed with a key made at start, so they end when this process does and ' +
  'are not shared between instances. Set SESSION_SECRET (at least 32 characters) from a secret.'

/** What loaders and actions do with the visitor's session. */
export interface SessionControl {
  get(key: string): unknown
  set(key: string, value: unknown): void
  /** Ends the session (the cookie is expired). */
  end(): void
  /**
   * Gives the session a new identity, keeping its data: call it when the visitor signs
   * in, so an identity planted before (session fixation) is not the signed-in one.
   */
  regenerate(): void
  /** A message for the next page the visitor sees, once. */
  flash(message: string): void
  /** The message flashed before, taken out: the page after shows it, the next one does not. */
  takeFlash(): string | undefined
}

/** The library's session object, as far as we use it. */
interface SecureSession {
  get(key: string): unknown
  set(key: string, value: unknown): void
  delete(): void
  touch(): void
  readonly changed: boolean
  readonly deleted: boolean
}

/** Seals and opens session cookies (@fastify/secure-session's functions, without its per-request hooks). */
export interface SessionCodec {
  decode(cookie: string, log: FastifyRequest['log']): SecureSession | null
  create(): SecureSession
  encode(session: SecureSession): string
}

/** A request's session, opened on first use only (a page that never asks costs nothing). */
export interface RequestSession {
  readonly control: SessionControl
  /** True once something was set in, or taken from, the session (a flash message taken counts). */
  readonly changed: boolean
  /** Reads what the session needs before it is used (a store's record); once per request. */
  ready(): Promise<void>
  /** Sets or expires the session cookie when the session changed. */
  applyTo(reply: FastifyReply): Promise<void>
}

/**
 * The most bytes of name and value a browser keeps in one cookie (RFC 6265bis): a
 * larger cookie is dropped without a word, and the session with it.
 */
export const MAX_COOKIE_BYTES = 4096

export function requestSession(request: FastifyRequest, codec: SessionCodec): RequestSession {
  let session: SecureSession | undefined
  /** The session as last sealed, while nothing has changed it since: the cookie's value. */
  let sealed: string | undefined
  /**
   * Sets `key`, or fails where it was set (the action's own error, with its digest)
   * when the sealed session would be a cookie no browser keeps; the value is not kept.
   */
  const setChecked = (key: string, value: unknown) => {
    const opened = open()
    const before = opened.get(key)
    opened.set(key, value)
    const candidate = codec.encode(opened)
    const bytes = SESSION_COOKIE.length + 1 + encodeURIComponent(candidate).length
    if (bytes <= MAX_COOKIE_BYTES) {
      sealed = candidate
      return
    }
    opened.set(key, before) // as it was: what was sealed before still stands for it
    throw new RangeError(
      `The session would be a cookie of ${bytes} bytes, and browsers drop cookies over ${MAX_COOKIE_BYTES}: ` +
        'keep less in it (an id, with the data kept elsewhere).',
    )
  }
  const open = (): SecureSession => {
    const cookie = request.cookies[SESSION_COOKIE]
    session ??= (cookie ? codec.decode(cookie, request.log) : null) ?? codec.create()
    return session
  }
  const control: SessionControl = {
    get: (key) => (key === FLASH_KEY ? undefined : open().get(key)),
    set: (key, value) => {
      if (key === FLASH_KEY) throw new TypeError('Use flash() for the flash message')
      setChecked(key, value)
    },
    end: () => {
      sealed = undefined
      open().delete()
    },
    // A sealed cookie has no identity to change: sealing it again (a new nonce) is all this mode can do.
    regenerate: () => {
      open().touch()
      sealed = undefined
    },
    flash: (message) => setChecked(FLASH_KEY, message),
    takeFlash: () => {
      const message = open().get(FLASH_KEY)
      if (message === undefined) return undefined
      sealed = undefined
      open().set(FLASH_KEY, undefined)
      return typeof message === 'string' ? message : undefined
    },
  }
  return {
    control,
    get changed() {
      return session?.changed ?? false
    },
    ready: () => Promise.resolve(),
    async applyTo(reply) {
      // A HEAD (a link checker, a preview bot) sees the page but takes nothing from the
      // session: the flash it read is still there for the GET that shows it.
      if (!session?.changed || request.method === 'HEAD') return
      const options = { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: isHttps(request) }
      if (session.deleted) reply.setCookie(SESSION_COOKIE, '', { ...options, expires: new Date(0), maxAge: 0 })
      else reply.setCookie(SESSION_COOKIE, sealed ?? codec.encode(session), { ...options, maxAge: SESSION_MAX_AGE_S })
    },
  }
}

/**
 * The session codec, registered on `app`: @fastify/secure-session's sealing without its
 * hooks (which would open and seal a session on every request, assets and cached pages
 * included). It is registered in a context of its own that has no routes, its functions
 * are borrowed, and a session is opened only when a loader or action uses it.
 */
export function registerSessions(app: FastifyInstance, secrets: readonly string[]): void {
  if (secrets.length === 0) app.log.warn(UNSET_SECRET_WARNING)
  const sessionCodec: SessionCodec = {
    decode: () => null,
    create: () => {
      throw new Error('sessions are not ready')
    },
    encode: () => '',
  }
  app.decorate('sessionCodec', sessionCodec)
  app.register(async function sealSessions(scope) {
    await scope.register(fastifySecureSession, { key: sessionKeys(secrets), cookieName: SESSION_COOKIE, expiry: SESSION_MAX_AGE_S })
    sessionCodec.decode = (cookie, log) => scope.decodeSecureSession(cookie, log)
    sessionCodec.create = () => scope.createSecureSession({})
    sessionCodec.encode = (session) => scope.encodeSecureSession(session as never)
  })
}
