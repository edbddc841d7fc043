/**
 * What a session is to the rest of the framework, whichever kind it is (the sealed cookie's
 * in ./sealed.ts, a store's in ./stored.ts): the interfaces loaders, actions and the app use,
 * and the rules for its data that both kinds share.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { randomBytes } from 'node:crypto'
import { asIdentity } from '../../../shared/framework/identity.js'

/** The flash message's key in a session's data. */
export const FLASH_KEY = '__flash'
/** The sign-in's identity (shared/framework/identity.ts), which each `regenerate()` makes anew. */
export const IDENTITY_KEY = '__identity'

export const newIdentity = () => randomBytes(16).toString('base64url')

/** The identity a session's data holds: '' for none (never signed in, or signed out). */
export const identityIn = (data: Record<string, unknown>) => asIdentity(data[IDENTITY_KEY])

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
   * has no identity to change and is only sealed again. Either way the session's
   * identity, which tabs compare, is new: a tab showing the one before loads again.
   */
  regenerate(): void
  /** A message for the next page the visitor sees, once. */
  flash(message: string): void
  /** The message flashed before, taken out: the page after shows it, the next one does not. */
  takeFlash(): string | undefined
}

/** A request's session, opened on first use only (a page that never asks costs nothing). */
export interface RequestSession {
  readonly control: SessionControl
  /** True once what the browser holds or sees of the session changes (set, ended, a flash message taken, its cookie sealed again). */
  readonly changed: boolean
  /** Who is signed in, as tabs compare it: '' for none. Read after `ready()`; throws where the store could not read the session. */
  readonly identity: string
  /** Reads what the session needs before it is used (a store's record, when the request carries a cookie); once per request. */
  ready(): Promise<void>
  /** Saves the session where it changed, and sets or expires its cookie. */
  applyTo(reply: FastifyReply): Promise<void>
}

/** The app's sessions (`app.sessions`): each request's, in the configured store. */
export interface Sessions {
  open(request: FastifyRequest): RequestSession
}

/** A session's data and when it started, as a request holds it. */
export interface Held {
  data: Record<string, unknown>
  createdAt: number
}

export function checkKey(key: string): void {
  if (key === FLASH_KEY) throw new TypeError('Use flash() for the flash message')
  if (key.startsWith('__')) throw new TypeError(`Session keys starting with __ are the framework's: ${JSON.stringify(key)}`)
}

export const isEmpty = (data: Record<string, unknown>) => Object.values(data).every((value) => value === undefined)
