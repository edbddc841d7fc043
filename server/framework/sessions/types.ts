/** What a session is to the rest of the framework, whether a sealed cookie (./sealed.ts) or stored (./stored.ts). */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { randomBytes } from 'node:crypto'
import { asIdentity } from '../../../shared/framework/identity.js'

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
  /** With a store, every copy of the cookie is dead at once. Something set afterwards starts a new session. */
  end(): void
  /**
   * A new identity, keeping the data, and its lifetimes started again: call it when the
   * visitor signs in, against session fixation. A sealed cookie is only sealed again.
   * Tabs compare the session's identity (which this makes new): one showing the last loads again.
   */
  regenerate(): void
  /** A message for the next page the visitor sees, once. */
  flash(message: string): void
  /** Taken out: the page after shows it, the next one does not. */
  takeFlash(): string | undefined
}

/** Opened on first use only: a page that never asks costs nothing. */
export interface RequestSession {
  readonly control: SessionControl
  /** Set, ended, a flash message taken, or its cookie sealed again. */
  readonly changed: boolean
  /** Who is signed in, as tabs compare it: '' for none. Read after `ready()`; throws where the store could not read the session. */
  readonly identity: string
  /** A store's record, when the request carries a cookie; once per request. */
  ready(): Promise<void>
  /**
   * Writes what changed since the last call onto `reply`. Undefined when nothing was left to
   * wait for (a sealed session always; a stored one with nothing to save): the response's
   * `onSend` hook then goes on in the same tick.
   */
  applyTo(reply: FastifyReply): Promise<void> | undefined
}

export interface Sessions {
  open(request: FastifyRequest): RequestSession
}

export interface Held {
  data: Record<string, unknown>
  createdAt: number
}

export function checkKey(key: string): void {
  if (key === FLASH_KEY) throw new TypeError('Use flash() for the flash message')
  if (key.startsWith('__')) throw new TypeError(`Session keys starting with __ are the framework's: ${JSON.stringify(key)}`)
}

export const isEmpty = (data: Record<string, unknown>) => Object.values(data).every((value) => value === undefined)
