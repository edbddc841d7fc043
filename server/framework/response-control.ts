/**
 * What a loader, guard or action may do to the response besides its data: cookies and
 * headers. Collected while it runs and applied to whichever response goes out (document,
 * page data, a form post's redirect or JSON), so a loader behaves the same on every path.
 */
import type {} from '@fastify/cookie'
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify'
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
  /** Default true. */
  readonly httpOnly?: boolean
  /** Default: true over https (directly or through a trusted proxy). */
  readonly secure?: boolean
  /** Default `lax`. */
  readonly sameSite?: 'lax' | 'strict' | 'none'
}

export interface ResponseControl {
  setCookie(name: string, value: string, options?: CookieOptions): void
  deleteCookie(name: string, options?: Pick<CookieOptions, 'path' | 'domain'>): void
  /** `Set-Cookie` goes through `setCookie`; the security and cache headers are not the page's to change. */
  setHeader(name: string, value: string): void
}

/**
 * The security policy's (configured or not), the protocol's, and those that decide where
 * the browser goes or what caches keep (`Refresh` could send it off the site).
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
  readonly cookies: Readonly<Record<string, string | undefined>>
  readonly control: ResponseControl
  readonly session: SessionControl
  /** Who is signed in, as tabs compare it (shared/framework/identity.ts): '' for none. */
  readonly identity: string
  /** A cookie or the session changed (a flash message taken counts): the response is for this request alone. */
  readonly changesState: boolean
  /** The session saved first, then the cookies and headers. */
  applyTo(reply: FastifyReply): Promise<void>
}

const SESSION_COOKIE_MESSAGE = "the session cookie stays between the server and the browser's cookie jar: never in a page or an answer"

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * An action and the loader run after it share the session and the effects. A property
     * (declared by `registerResponseCollection`, so every request has it from the start): a
     * WeakMap of requests costs the garbage collector on every request.
     */
    collectedResponse?: Collected | undefined
  }
}

/** Beside what the handlers see, under keys of this module's: the request's session, and `applyTo`'s synchronous form. */
const SESSION = Symbol('session')
const APPLY_NOW = Symbol('applyNow')

interface Collected extends CollectedResponse {
  readonly [SESSION]: RequestSession
  /** `applyTo`, without a promise when nothing was left to wait for: the `onSend` hook's. */
  readonly [APPLY_NOW]: (reply: FastifyReply) => Promise<void> | undefined
}

export function collectResponse(request: FastifyRequest): CollectedResponse {
  return collectionOf(request)
}

function collectionOf(request: FastifyRequest): Collected {
  const existing = request.collectedResponse
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
  // Once per effect: an action's response may be the page its loader rendered after it.
  const applyEffects = (reply: FastifyReply) => {
    for (; applied < effects.length; applied++) effects[applied]!(reply)
  }
  const failSave = (error: unknown): never => {
    saveFailed = true
    throw error
  }
  const applyNow = (reply: FastifyReply): Promise<void> | undefined => {
    // Once a save failed, the response is its 503, without the action's other effects
    // (a sign-in's other cookies), whoever applies this again (the onSend hook).
    if (saveFailed) return undefined
    let saving: Promise<void> | undefined
    try {
      saving = session.applyTo(reply)
    } catch (error) {
      failSave(error)
    }
    if (saving) return saving.then(() => applyEffects(reply), failSave)
    applyEffects(reply)
    return undefined
  }
  const collected: Collected = {
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
      await applyNow(reply)
    },
    [SESSION]: session,
    [APPLY_NOW]: applyNow,
  }
  request.collectedResponse = collected
  return collected
}

/**
 * The request's collection with its session read: for an /api route or hook that uses the
 * session, then `await response.applyTo(reply)`. Throws `SessionsUnavailableError` (a 503)
 * when the store does not respond.
 */
export async function openResponse(request: FastifyRequest): Promise<CollectedResponse> {
  const response = collectionOf(request)
  await response[SESSION].ready()
  return response
}

/** For an /api route (or any handler): saved as its response goes out. */
export async function sessionOf(request: FastifyRequest): Promise<SessionControl> {
  return (await openResponse(request)).session
}

/**
 * Every request's collection, saved as its response goes out. Registered before the cookie
 * plugin's `onSend`, so its cookies are written: applies what a handler (an /api route)
 * collected. Applying twice is harmless.
 */
export function registerResponseCollection(app: FastifyInstance): void {
  app.decorateRequest('collectedResponse', undefined)
  app.addHook('onSend', saveCollectedResponse)
}

const saveCollectedResponse: onSendHookHandler = function saveCollectedResponse(request, reply, payload, done) {
  // A callback hook, on every response: most have nothing left to save (no session cookie,
  // nothing changed) and go on in this tick. A promise here sends the response a tick
  // later, and Fastify then waits for it with listeners on the response (an async
  // handler that returns the reply).
  let saving: Promise<void> | undefined
  try {
    saving = request.collectedResponse?.[APPLY_NOW](reply)
  } catch (error) {
    return done(error as Error)
  }
  if (!saving) return done(null, payload)
  saving.then(
    () => done(null, payload),
    (error: Error) => done(error),
  )
}
