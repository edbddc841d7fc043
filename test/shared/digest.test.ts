import t from 'tap'
import { digestOf } from '../../shared/framework/digest.js'

function failAt(message: string): Error {
  return new Error(message)
}

t.test('the same error gives the same digest, every time', async (t) => {
  const errors = [0, 1, 2].map(() => failAt('boom'))
  const digests = errors.map(digestOf)
  t.match(digests[0], /^[0-9a-z]{1,11}$/)
  t.equal(digests[1], digests[0])
  t.equal(digests[2], digests[0])
})

t.test('different bugs give different digests', async (t) => {
  t.not(digestOf(failAt('boom')), digestOf(failAt('bang')))
  t.not(digestOf(new TypeError('boom')), digestOf(new RangeError('boom')))
})

t.test('moving code (line and column numbers) does not change the digest', async (t) => {
  const a = new Error('boom')
  a.stack = 'Error: boom\n    at load (/app/server/pages/items.ts:10:5)\n    at run (/app/server/render.ts:3:1)'
  const b = new Error('boom')
  b.stack = 'Error: boom\n    at load (/app/server/pages/items.ts:42:17)\n    at run (/app/server/render.ts:8:9)'
  t.equal(digestOf(a), digestOf(b))
})

t.test('non-Error throws get a digest too', async (t) => {
  t.match(digestOf('a string'), /^[0-9a-z]+$/)
  t.not(digestOf('a string'), digestOf({ some: 'object' }))
})

t.test('a system error that names a path: the same failure on another path has the same digest', async (t) => {
  const { open } = await import('node:fs/promises')
  const failure = async (file: string) =>
    open(file).then(
      () => t.fail('opened'),
      (error: unknown) => error,
    )
  // From one line, so only the path differs.
  const failures: unknown[] = []
  for (const file of ['/nonexistent-dir-for-digest/upload-1', '/nonexistent-dir-for-digest/upload-2', `${process.execPath}/not-a-dir`]) {
    failures.push(await failure(file))
  }
  const [a, b, notDirectory] = failures
  t.not((a as Error).message, (b as Error).message, 'the messages differ')
  t.equal(digestOf(a), digestOf(b))
  t.equal((notDirectory as NodeJS.ErrnoException).code, 'ENOTDIR')
  t.not(digestOf(notDirectory), digestOf(a), 'another failure at the same place is another bug')
})
