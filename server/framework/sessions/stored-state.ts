/** A stored session's state within one request, read and changed by ./stored.ts, saved by ./stored-save.ts. */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { SessionsUnavailableError, SessionStore, StoredSession } from '../session-stores.js'
import { expireCookie } from './cookie.js'
import type { SessionLifetimes } from './lifetimes.js'
import type { Held } from './types.js'

/** As read, or as this request saved it. */
export interface Found {
  readonly id: string
  readonly record: StoredSession
  readonly ttlMs: number
}

export interface StoredState {
  readonly request: FastifyRequest
  readonly store: SessionStore
  readonly lifetimes: SessionLifetimes
  readonly clock: () => number
  readonly cookie: string | undefined
  read: boolean
  found: Found | undefined
  held: Held | undefined
  /** In this request; `dirty`: since it was last saved. */
  changed: boolean
  dirty: boolean
  /** end() or regenerate(): what is kept from now on goes under a new id. */
  newId: boolean
  browserId: string | undefined
  /** Thrown where the session is first used (a 503), so a page that does not use it is still served. */
  unavailable: SessionsUnavailableError | undefined
}

export function open(state: StoredState): Held {
  if (state.unavailable) throw state.unavailable
  if (!state.read) throw new Error('The session has not been read: openResponse(request) reads it before loaders and actions run')
  const { found } = state
  state.held ??= found ? { data: { ...found.record.data }, createdAt: found.record.createdAt } : { data: {}, createdAt: state.clock() }
  return state.held
}

export function change(state: StoredState): void {
  state.changed = true
  state.dirty = true
}

export function dropCookie(state: StoredState, reply: FastifyReply): void {
  if (state.browserId !== undefined) expireCookie(state.request, reply)
  state.browserId = undefined
}
