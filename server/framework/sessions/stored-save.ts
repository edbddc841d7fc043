/** Saving a stored session at the end of a request: only what changed, or its TTL when due. */
import type { FastifyReply } from 'fastify'
import { newSessionId, sessionKey, type StoredSession } from '../session-stores.js'
import { cookieOptions, SESSION_COOKIE, setIdentityCookie } from './cookie.js'
import { refreshAfterMs, remainingMs } from './lifetimes.js'
import { dropCookie, open, type StoredState } from './stored-state.js'
import { identityIn, isEmpty, type Held } from './types.js'
import { markServerOnlyValue } from '../server-only.js'

/**
 * A cookie naming no live session is left alone (it reads as none, and its Max-Age ends
 * it): expiring it could land after a sign-in's response in another tab and drop its cookie.
 */
/** True when `save` has something to do: a change, or the record's TTL due for refreshing. */
export function needsSaving(state: StoredState, now: number): boolean {
  return state.dirty || refreshDue(state, now)
}

function refreshDue({ found, lifetimes }: StoredState, now: number): boolean {
  return found !== undefined && found.ttlMs < remainingMs(found.record.createdAt, now, lifetimes) - refreshAfterMs(lifetimes)
}

async function refresh(state: StoredState, now: number, key: string | undefined): Promise<void> {
  const { found, lifetimes } = state
  if (found && refreshDue(state, now)) {
    const ttlMs = remainingMs(found.record.createdAt, now, lifetimes)
    await state.store.touch(key!, ttlMs)
    state.found = { ...found, ttlMs }
  }
}

async function keep(state: StoredState, reply: FastifyReply, session: Held, now: number, key: string | undefined): Promise<void> {
  const { store, lifetimes } = state
  const record: StoredSession = { createdAt: session.createdAt, savedAt: now, data: session.data }
  const value = JSON.stringify(record)
  const ttlMs = remainingMs(session.createdAt, now, lifetimes)
  if (key && !state.newId) {
    // Only while it is still there: a session ended meanwhile (signed out elsewhere) stays ended.
    const kept = await store.save(key, value, ttlMs, { existing: true })
    state.found = kept ? { id: state.found!.id, record, ttlMs } : undefined
    if (!kept) dropCookie(state, reply)
  } else {
    const id = newSessionId()
    markServerOnlyValue(id, 'a session id goes to the browser as its cookie only, never in a page or an answer', state.request)
    await store.save(sessionKey(id), value, ttlMs, { existing: false, ...(key ? { replacing: key } : {}) })
    state.found = { id, record, ttlMs }
    state.browserId = id
    const maxAge = Math.ceil((session.createdAt + lifetimes.absoluteMs - now) / 1000)
    reply.setCookie(SESSION_COOKIE, id, { ...cookieOptions(state.request), maxAge })
    setIdentityCookie(state.request, reply, identityIn(session.data), maxAge)
  }
}

export async function save(state: StoredState, reply: FastifyReply): Promise<void> {
  const now = state.clock()
  const key = state.found && sessionKey(state.found.id)
  if (!state.dirty) {
    await refresh(state, now, key)
    return
  }
  const session = open(state)
  if (isEmpty(session.data)) {
    if (key) await state.store.remove(key)
    state.found = undefined
    dropCookie(state, reply)
  } else {
    await keep(state, reply, session, now, key)
  }
  state.dirty = false
  state.newId = false
}
