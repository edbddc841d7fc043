/**
 * Passwords kept as scrypt hashes, compared in constant time. node:crypto's default cost: about 50 ms
 * of CPU per check, which also slows a guesser that got past the rate limit.
 */
import { randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto'

const KEY_BYTES = 32

export interface PasswordHash {
  readonly salt: Buffer
  readonly hash: Buffer
}

/** Synchronous: for the start, not for requests. */
export function hashPasswordSync(password: string): PasswordHash {
  const salt = randomBytes(16)
  return { salt, hash: scryptSync(password.normalize('NFC'), salt, KEY_BYTES) }
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
