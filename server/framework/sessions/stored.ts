/**
 * The stored session (SESSION_STORE=memory or redis): the cookie carries a random id only,
 * so `end()` and `regenerate()` end every copy of the cookie at once and a flash message
 * taken is gone for good.
 */
import type {} from '@fastify/cookie'
import type { FastifyRequest } from 'fastify'
import { isSessionId, parseStoredSession, sessionKey, SessionsUnavailableError, type SessionStore } from '../session-stores.js'
import { SESSION_COOKIE } from './cookie.js'
import type { SessionLifetimes } from './lifetimes.js'
import { needsSaving, save } from './stored-save.js'
import { change, open, type StoredState } from './stored-state.js'
import { checkKey, FLASH_KEY, identityIn, IDENTITY_KEY, newIdentity, type RequestSession, type SessionControl } from './types.js'

const unreadable = new WeakSet<FastifyRequest>()

/** Its 503 then says when to try again. */
export function sessionUnreadable(request: FastifyRequest): boolean {
  return unreadable.has(request)
}

function setValue(state: StoredState, key: string, value: unknown): void {
  // What the store cannot keep fails here, in the action, not once the response is on its way.
  if (value !== undefined) JSON.stringify(value)
  open(state).data[key] = value
  change(state)
}

function storedControl(state: StoredState): SessionControl {
  return {
    get: (key) => (key === FLASH_KEY ? undefined : open(state).data[key]),
    set: (key, value) => {
      checkKey(key)
      setValue(state, key, value)
    },
    end: () => {
      open(state)
      state.held = { data: {}, createdAt: state.clock() }
      state.newId = true
      change(state)
    },
    regenerate: () => {
      const opened = open(state)
      opened.createdAt = state.clock()
      opened.data[IDENTITY_KEY] = newIdentity()
      state.newId = true
      change(state)
    },
    flash: (message) => setValue(state, FLASH_KEY, message),
    takeFlash: () => {
      const message = open(state).data[FLASH_KEY]
      if (message === undefined) return undefined
      // Taken on the server: an older copy of the cookie cannot bring it back.
      delete state.held!.data[FLASH_KEY]
      change(state)
      return typeof message === 'string' ? message : undefined
    },
  }
}

/** A store that does not respond fails the session's first use, not the request. */
async function readSession(state: StoredState): Promise<void> {
  const { cookie, lifetimes } = state
  if (cookie !== undefined && isSessionId(cookie)) {
    try {
      const stored = await state.store.read(sessionKey(cookie))
      const record = stored && parseStoredSession(stored.value)
      const now = state.clock()
      if (record && stored && now - record.createdAt < lifetimes.absoluteMs) state.found = { id: cookie, record, ttlMs: stored.ttlMs }
    } catch (error) {
      if (!(error instanceof SessionsUnavailableError)) throw error
      state.unavailable = error
      unreadable.add(state.request)
    }
  }
  state.read = true
}

export function storedSession(request: FastifyRequest, store: SessionStore, lifetimes: SessionLifetimes, clock: () => number): RequestSession {
  const cookie = request.cookies[SESSION_COOKIE] || undefined
  const state: StoredState = {
    request,
    store,
    lifetimes,
    clock,
    cookie,
    read: false,
    found: undefined,
    held: undefined,
    changed: false,
    dirty: false,
    newId: false,
    browserId: cookie,
    unavailable: undefined,
  }
  let reading: Promise<void> | undefined
  /** A save failed: the response going out is its 503, and nothing is tried again for it. */
  let failed = false
  return {
    control: storedControl(state),
    get changed() {
      return state.changed
    },
    // Unreadable, it throws the store's error (a 503 with Retry-After), as any use of the session does.
    get identity() {
      return state.read ? identityIn(open(state).data) : ''
    },
    ready() {
      reading ??= readSession(state)
      return reading
    },
    // Again on the same response (an action's, then its page's): only what changed since.
    applyTo(reply) {
      // Unread, unreadable (whoever used it got the 503), or a HEAD: nothing to save.
      if (!state.read || failed || state.unavailable || request.method === 'HEAD') return undefined
      if (!needsSaving(state, state.clock())) return undefined
      return save(state, reply).catch((error: unknown) => {
        failed = true
        throw error
      })
    },
  }
}
