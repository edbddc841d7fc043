/**
 * Passwords kept as scrypt hashes (node:crypto), compared in constant time. The cost is
 * the one node:crypto recommends (N = 2^14, r = 8, p = 1): about 50 ms of CPU per check
 * on this kind of machine, which also slows a guesser that got past the rate limit.
 */
import { randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto'

const KEY_BYTES = 32

/** A password as it is kept: never the password itself. */
export interface PasswordHash {
  readonly salt: Buffer
  readonly hash: Buffer
}

/** Hashes a password with a fresh salt (synchronous: for the start, not for requests). */
export function hashPasswordSync(password: string): PasswordHash {
  const salt = randomBytes(16)
  return { salt, hash: scryptSync(password.normalize('NFC'), salt, KEY_BYTES) }
}

/** True when `password` is the one `kept` was made from; takes as long whatever it is. */
export function verifyPassword(password: string, kept: PasswordHash): Promise<boolean> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), kept.salt, KEY_BYTES, (error, derived) => {
      if (error) reject(error)
      else resolve(timingSafeEqual(derived, kept.hash))
    })
  })
}
