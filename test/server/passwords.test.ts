import t from 'tap'
import { hashPasswordSync, passwordHashOf, unmatchedPasswordHash, verifyPassword } from '../../server/framework/passwords.js'
import { isServerOnly } from '../../server/framework/server-only.js'

t.test('a hash kept in hex checks the password it was made from, and no other', async (t) => {
  const made = hashPasswordSync('correct horse')
  const kept = passwordHashOf(made.salt.toString('hex'), made.hash.toString('hex'))
  t.equal(await verifyPassword('correct horse', kept), true)
  t.equal(await verifyPassword('correct horse ', kept), false)
  t.ok(isServerOnly(kept) && isServerOnly(kept.salt) && isServerOnly(kept.hash), 'server-only: the record and both buffers')
})

t.test('a kept hash that is not a 16-byte salt and a 32-byte hash in hex stops the start', async (t) => {
  const salt = '00'.repeat(16)
  const hash = '11'.repeat(32)
  t.throws(() => passwordHashOf(salt.slice(2), hash), /16-byte salt and a 32-byte hash, in hex/)
  t.throws(() => passwordHashOf(salt, `${hash}00`), /16-byte salt and a 32-byte hash, in hex/)
  t.throws(() => passwordHashOf(salt, `${hash.slice(2)}0g`), /16-byte salt and a 32-byte hash, in hex/)
  const made = hashPasswordSync('either case')
  const upper = passwordHashOf(made.salt.toString('hex').toUpperCase(), made.hash.toString('hex').toUpperCase())
  t.equal(await verifyPassword('either case', upper), true, 'hex in capitals reads the same')
})

t.test('the stand-in for a missing account matches no password, even an empty one', async (t) => {
  const none = unmatchedPasswordHash()
  t.equal(await verifyPassword('', none), false)
  t.equal(await verifyPassword('no account has this password', none), false)
  t.ok(isServerOnly(none))
  t.not(unmatchedPasswordHash().salt.toString('hex'), none.salt.toString('hex'), 'a fresh salt each time')
})
