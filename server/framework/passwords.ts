/**
 * Passwords kept as scrypt hashes, compared in constant time. node:crypto's default cost: about 50 ms
 * of CPU per check, which also slows a guesser that got past the rate limit. A hash is
 * server-only (./server-only.ts): the record and both its buffers, so an account record
 * returned whole, or copied with `{ ...account }`, is refused before it reaches a browser.
 */
import { randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto'
import { markServerOnly, type ServerOnly } from './server-only.js'

const HASH_MESSAGE = 'a password hash stays on the server: return what the page shows, not the account record'

const KEY_BYTES = 32

export interface PasswordHash {
  readonly salt: Buffer
  readonly hash: Buffer
}

/** Synchronous: for the start, not for requests. */
export function hashPasswordSync(password: string): ServerOnly<PasswordHash> {
  const salt = markServerOnly(randomBytes(16), HASH_MESSAGE)
  const hash = markServerOnly(scryptSync(password.normalize('NFC'), salt, KEY_BYTES), HASH_MESSAGE)
  return markServerOnly({ salt, hash }, HASH_MESSAGE)
}

/** Takes as long whatever the password is. */
export function verifyPassword(password: string, kept: PasswordHash): Promise<boolean> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), kept.salt, KEY_BYTES, (error, derived) => {
      if (error) reject(error)
      else resolve(timingSafeEqual(derived, kept.hash))
    })
  })
}
