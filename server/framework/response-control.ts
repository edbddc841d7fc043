/**
 * What a loader or an action may do to its answer besides its data: set and delete
 * cookies, set response headers. Collected while it runs and applied to whichever
 * answer goes out (the HTML, the page data, a form post's redirect or JSON), so the
 * same loader behaves the same on every path. Cookie defaults are the safe ones:
 * `HttpOnly`, `SameSite=Lax`, `Path=/`, and `Secure` when the client reached us over
 * https (directly or through a trusted proxy).
 */
import type {} from '@fastify/cookie'
import type { FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify'
import { validateHeaderName, validateHeaderValue } from 'node:http'
import { SECURITY_HEADER_NAMES } from './security-headers.js'
import { SESSION_COOKIE, type RequestSession, type SessionControl } from './session.js'
import { isHttps } from './request-scheme.js'
import { markServerOnlyValue } from './server-only.js'

export interface CookieOptions {
  /** Seconds until the cookie expires; a session cookie when neither this nor `expires` is given. */
  readonly maxAge?: number
  readonly expires?: Date
  /** Default `/`. */
  readonly path?: string
  readonly domain?: string
  /** Default true: scripts cannot read it. */
  readonly httpOnly?: boolean
  /** Default: true over https, false over http. */
  readonly secure?: boolean
  /** Default `lax`. */
  readonly sameSite?: 'lax' | 'strict' | 'none'
}

export interface ResponseControl {
  setCookie(name: string, value: string, options?: CookieOptions): void
  deleteCookie(name: string, options?: Pick<CookieOptions, 'path' | 'domain'>): void
  /** A response header. `Set-Cookie` goes through `setCookie`; the security headers are not the page's to change. */
  setHeader(name: string, value: string): void
}

/**
 * Headers a page may not set: the security policy's (every one it may set, configured or
 * not), the protocol's, and those that decide where the browser goes or what caches keep
 * (`Refresh` could send it off the site; the cache policy is the page handlers's).
 */
const RESERVED_HEADERS = new Set([
  ...SECURITY_HEADER_NAMES,
  'set-cookie',
  'content-type',
  'content-length',
  'transfer-encoding',
  'connection',
  'location',
  'refresh',
  'cache-control',
  'etag',
  'x-request-id',
])

const COOKIE_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

type Effect = (reply: FastifyReply) => void

export interface CollectedResponse {
  /** The request's cookies, parsed. */
  readonly cookies: Readonly<Record<string, string | undefined>>
  readonly control: ResponseControl
  /** The visitor's session, opened when first used. */
  readonly session: SessionControl
  /** Who is signed in, as tabs compare it (shared/framework/identity.ts): '' for none. */
  readonly identity: string
  /**
   * True once what the browser holds was changed: a cookie set or deleted, the session
   * changed (a flash message taken counts). Such an answer is for this request alone.
   */
  readonly changesState: boolean
  /** Applies what was collected to the answer about to go out (the session saved first, where a store keeps it). */
  applyTo(reply: FastifyReply): Promise<void>
}

const SESSION_COOKIE_MESSAGE = "the session cookie stays between the server and the browser's cookie jar: never in a page or an answer"

/** One collection per request: an action and the loader run after it share the session and the effects. */
const collections = new WeakMap<FastifyRequest, CollectedResponse>()

export function collectResponse(request: FastifyRequest): CollectedResponse {
  const existing = collections.get(request)
  if (existing) return existing
  const effects: Effect[] = []
  let applied = 0
  let saveFailed = false
  let cookieChanged = false
  const session = request.server.sessions.open(request)
  // The session cookie (a sealed session, or a stored one's id) is handed to loaders and
  // actions with the other cookies: it is server-only while this request lives.
  const sessionCookie = request.cookies[SESSION_COOKIE]
  if (sessionCookie) markServerOnlyValue(sessionCookie, SESSION_COOKIE_MESSAGE, request)
  const secure = isHttps(request)
  const control: ResponseControl = {
    setCookie(name, value, options = {}) {
      if (!COOKIE_NAME.test(name)) throw new TypeError(`Cookie name ${JSON.stringify(name)} is not a valid token`)
      if (name === SESSION_COOKIE) throw new TypeError(`The ${SESSION_COOKIE} cookie is the session's: use session.set()`)
      const settings = {
        path: options.path ?? '/',
        httpOnly: options.httpOnly ?? true,
        secure: options.secure ?? secure,
        sameSite: options.sameSite ?? ('lax' as const),
        ...(options.maxAge !== undefined ? { maxAge: options.maxAge } : {}),
        ...(options.expires !== undefined ? { expires: options.expires } : {}),
        ...(options.domain !== undefined ? { domain: options.domain } : {}),
      }
      // Serialized now, so a bad value fails in the loader (a 500 with its digest), not while sending.
      request.server.serializeCookie(name, value, settings)
      cookieChanged = true
      effects.push((reply) => void reply.setCookie(name, value, settings))
    },
    deleteCookie(name, options = {}) {
      if (!COOKIE_NAME.test(name)) throw new TypeError(`Cookie name ${JSON.stringify(name)} is not a valid token`)
      // With the attributes setCookie gives by default, so the deletion looks like the cookie it ends.
      const settings = {
        path: options.path ?? '/',
        httpOnly: true,
        secure,
        sameSite: 'lax' as const,
        ...(options.domain ? { domain: options.domain } : {}),
      }
      cookieChanged = true
      effects.push((reply) => void reply.clearCookie(name, settings))
    },
    setHeader(name, value) {
      validateHeaderName(name)
      validateHeaderValue(name, value)
      if (RESERVED_HEADERS.has(name.toLowerCase())) throw new TypeError(`A page may not set the ${name} header`)
      effects.push((reply) => void reply.header(name, value))
    },
  }
  const collected: CollectedResponse = {
    cookies: request.cookies,
    control,
    session: session.control,
    get identity() {
      return session.identity
    },
    get changesState() {
      return cookieChanged || session.changed
    },
    async applyTo(reply) {
      // Once a save failed, the answer is its 503: nothing else of the action goes out
      // with it (a sign-in's other cookies), whoever applies this again (the onSend hook).
      if (saveFailed) return
      // The session first: when it cannot be saved, the answer is the 503 it throws, without the page's other effects.
      try {
        await session.applyTo(reply)
      } catch (error) {
        saveFailed = true
        throw error
      }
      // Once per effect: an action's answer may be the page its loader rendered after it.
      for (; applied < effects.length; applied++) effects[applied]!(reply)
    },
  }
  collections.set(request, collected)
  sessions.set(collected, session)
  return collected
}

const sessions = new WeakMap<CollectedResponse, RequestSession>()

/**
 * The request's collection with its session ready to use (a store's record read, when
 * the request carries a session cookie): what loaders, guards and actions are given,
 * and what an /api route or hook that uses the session calls, then
 * `await response.applyTo(reply)` before its answer goes out. Throws
 * `SessionsUnavailableError` (a 503 for every kind of request) when the store does not answer.
 */
export async function openResponse(request: FastifyRequest): Promise<CollectedResponse> {
  const collected = collectResponse(request)
  await sessions.get(collected)!.ready()
  return collected
}

/**
 * The visitor's session for an /api route (or any handler): the same session pages
 * and actions use. What the handler changes is saved as its answer goes out
 * (`saveCollectedResponse`).
 */
export async function sessionOf(request: FastifyRequest): Promise<SessionControl> {
  return (await openResponse(request)).session
}

/**
 * An `onSend` hook, added before the cookie plugin's so its cookies are written: applies
 * what a handler collected (session, cookies) when it did not apply it itself (an /api
 * route). Applying twice is harmless: each effect once, the session cookie by name.
 */
export const saveCollectedResponse: onSendHookHandler = function saveCollectedResponse(request, reply, payload, done) {
  // A callback hook, on every answer: most collected nothing, and go on without a promise.
  const collected = collections.get(request)
  if (!collected) return done(null, payload)
  collected.applyTo(reply).then(
    () => done(null, payload),
    (error: Error) => done(error),
  )
}
