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

function keptHash(salt: Buffer, hash: Buffer): ServerOnly<PasswordHash> {
  return markServerOnly({ salt: markServerOnly(salt, HASH_MESSAGE), hash: markServerOnly(hash, HASH_MESSAGE) }, HASH_MESSAGE)
}

/** Synchronous: for the start, not for requests. */
export function hashPasswordSync(password: string): ServerOnly<PasswordHash> {
  const salt = randomBytes(16)
  return keptHash(salt, scryptSync(password.normalize('NFC'), salt, KEY_BYTES))
}

/**
 * A hash made earlier (`salt` and `hash` in hex, as `hashPasswordSync` makes them), for a
 * password that is public anyway, such as a demo's: no start spends a check's CPU on it.
 */
export function passwordHashOf(salt: string, hash: string): ServerOnly<PasswordHash> {
  if (!/^[0-9a-f]{32}$/i.test(salt) || !/^[0-9a-f]{64}$/i.test(hash))
    throw new TypeError('a kept password hash is a 16-byte salt and a 32-byte hash, in hex')
  return keptHash(Buffer.from(salt, 'hex'), Buffer.from(hash, 'hex'))
}

/**
 * A hash no password matches (random bytes, not the scrypt of anything), to check a
 * password against when there is no account: the check costs what a real one does.
 */
export function unmatchedPasswordHash(): ServerOnly<PasswordHash> {
  return keptHash(randomBytes(16), randomBytes(KEY_BYTES))
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
