/** The sealed-cookie session (SESSION_STORE=cookie): the whole session in an encrypted cookie. */
import type {} from '@fastify/cookie'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { cookieOptions, expireCookie, SESSION_COOKIE, setIdentityCookie } from './cookie.js'
import { refreshAfterMs, remainingMs, type SessionLifetimes } from './lifetimes.js'
import { markServerOnlyValue } from '../server-only.js'
import { checkKey, FLASH_KEY, identityIn, IDENTITY_KEY, isEmpty, newIdentity, type Held, type RequestSession, type SessionControl } from './types.js'

export interface SealedSession {
  readonly data: Record<string, unknown>
  readonly createdAt: number
  readonly usedAt: number
}

export interface SessionCodec {
  /** Null when tampered or sealed with another key. `rotated`: opened with a previous key. */
  decode(cookie: string, log: FastifyRequest['log']): { readonly session: SealedSession; readonly rotated: boolean } | null
  encode(session: SealedSession): string
}

/** Browsers drop a larger cookie (name and value, RFC 6265bis) without a word, and the session with it. */
export const MAX_COOKIE_BYTES = 4096

interface SealedState {
  readonly request: FastifyRequest
  readonly codec: SessionCodec
  readonly lifetimes: SessionLifetimes
  readonly clock: () => number
  held: Held | undefined
  usedAt: number | undefined
  rotated: boolean
  /** In this request; `dirty`: since the cookie was last set on the response. */
  changed: boolean
  dirty: boolean
  /** The cookie's value, while nothing has changed the session since it was sealed. */
  sealed: string | undefined
  browserHasCookie: boolean
  /** Sealed again though nothing changed. */
  resealed: boolean
}

function open(state: SealedState): Held {
  if (state.held) return state.held
  const { request, codec, lifetimes } = state
  const now = state.clock()
  const cookie = request.cookies[SESSION_COOKIE]
  const opened = cookie ? codec.decode(cookie, request.log) : null
  const session = opened?.session
  // Too old, or unused for too long: no session (a copied cookie, a forgotten tab).
  if (session && now - session.createdAt < lifetimes.absoluteMs && now - session.usedAt < lifetimes.idleMs) {
    state.held = { data: session.data, createdAt: session.createdAt }
    state.usedAt = session.usedAt
    state.rotated = opened.rotated
  } else {
    state.held = { data: {}, createdAt: now }
  }
  return state.held
}

const seal = (state: SealedState, session: Held) => state.codec.encode({ data: session.data, createdAt: session.createdAt, usedAt: state.clock() })

function change(state: SealedState): void {
  state.changed = true
  state.dirty = true
}

/** Fails where it was set (the action's own error, with its digest) when no browser would keep the cookie. */
function setChecked(state: SealedState, key: string, value: unknown): void {
  const opened = open(state)
  const before = opened.data[key]
  opened.data[key] = value
  const candidate = seal(state, opened)
  const bytes = SESSION_COOKIE.length + 1 + encodeURIComponent(candidate).length
  if (bytes <= MAX_COOKIE_BYTES) {
    state.sealed = candidate
    change(state)
    return
  }
  opened.data[key] = before // as it was: what was sealed before still stands for it
  throw new RangeError(
    `The session would be a cookie of ${bytes} bytes, and browsers drop cookies over ${MAX_COOKIE_BYTES}: ` +
      'keep less in it (an id, with the data kept elsewhere).',
  )
}

/** Sealed again though nothing changed: opened with a previous key, or used after a while. */
function dueForSealing(state: SealedState): boolean {
  const { held, usedAt } = state
  return (
    held !== undefined && usedAt !== undefined && (state.rotated || state.clock() - usedAt >= refreshAfterMs(state.lifetimes)) && !isEmpty(held.data)
  )
}

function sealedControl(state: SealedState): SessionControl {
  return {
    get: (key) => (key === FLASH_KEY ? undefined : open(state).data[key]),
    set: (key, value) => {
      checkKey(key)
      setChecked(state, key, value)
    },
    end: () => {
      open(state)
      state.held = { data: {}, createdAt: state.clock() }
      state.usedAt = undefined
      state.sealed = undefined
      change(state)
    },
    // No identity to change: sealing it again (a new nonce) is all this mode can do.
    regenerate: () => {
      const opened = open(state)
      opened.createdAt = state.clock()
      opened.data[IDENTITY_KEY] = newIdentity()
      state.sealed = undefined
      change(state)
    },
    flash: (message) => setChecked(state, FLASH_KEY, message),
    takeFlash: () => {
      const message = open(state).data[FLASH_KEY]
      if (message === undefined) return undefined
      delete state.held!.data[FLASH_KEY]
      state.sealed = undefined
      change(state)
      return typeof message === 'string' ? message : undefined
    },
  }
}

const SEALED_MESSAGE = 'a sealed session goes to the browser as its cookie only, never in a page or an answer'

function applySealed(state: SealedState, reply: FastifyReply): void {
  const { request, held } = state
  // A HEAD (a link checker, a preview bot) sees the page but takes nothing from the
  // session: the flash it read is still there for the GET that shows it.
  if (!held || request.method === 'HEAD') return
  if (!state.dirty && !dueForSealing(state)) return
  state.resealed ||= !state.dirty
  state.dirty = false
  if (isEmpty(held.data)) {
    if (state.browserHasCookie) expireCookie(request, reply)
    state.browserHasCookie = false
    state.usedAt = undefined
    return
  }
  const now = state.clock()
  const maxAge = Math.ceil(remainingMs(held.createdAt, now, state.lifetimes) / 1000)
  const sealed = state.sealed ?? seal(state, held)
  markServerOnlyValue(sealed, SEALED_MESSAGE, request)
  reply.setCookie(SESSION_COOKIE, sealed, { ...cookieOptions(request), maxAge })
  setIdentityCookie(request, reply, identityIn(held.data), maxAge)
  state.browserHasCookie = true
  state.usedAt = now
  state.rotated = false
}

export function sealedSession(request: FastifyRequest, codec: SessionCodec, lifetimes: SessionLifetimes, clock: () => number): RequestSession {
  const state: SealedState = {
    request,
    codec,
    lifetimes,
    clock,
    held: undefined,
    usedAt: undefined,
    rotated: false,
    changed: false,
    dirty: false,
    sealed: undefined,
    browserHasCookie: Boolean(request.cookies[SESSION_COOKIE]),
    resealed: false,
  }
  return {
    control: sealedControl(state),
    get changed() {
      return state.changed || state.resealed || dueForSealing(state)
    },
    get identity() {
      return identityIn(open(state).data)
    },
    ready: () => Promise.resolve(),
    // Again on the same response (an action's, then its page's): only what changed since.
    applyTo(reply) {
      applySealed(state, reply)
      return undefined
    },
  }
}
