/** The return path a sign-in follows: visitor input, so anything that would leave the site is replaced. */
import t from 'tap'
import { returnPath } from '../../shared/framework/return-path.js'

const FALLBACK = '/account'

t.test('a page of this site comes back in canonical form', async (t) => {
  t.equal(returnPath('/account/activity', FALLBACK), '/account/activity')
  t.equal(returnPath('/items/7?tab=a b', FALLBACK), '/items/7?tab=a%20b')
  t.equal(returnPath('/caf%C3%A9', FALLBACK), '/caf%C3%A9')
})

t.test('anything that leaves the site, or is not a page, is replaced by the fallback', async (t) => {
  for (const hostile of [
    'https://evil.example/',
    '//evil.example',
    '/\\evil.example',
    '\\\\evil.example',
    '/\t/evil.example',
    ' /account',
    'javascript:alert(1)',
    'account',
    '/a/../..//evil.example',
    '/./account',
    '/account/',
    '/_data/account',
    '/_data',
    '/%ZZ',
    `/${'a'.repeat(3000)}`,
    '',
  ]) {
    t.equal(returnPath(hostile, FALLBACK), FALLBACK, JSON.stringify(hostile.slice(0, 40)))
  }
  t.equal(returnPath(null, FALLBACK), FALLBACK)
  t.equal(returnPath(undefined, FALLBACK), FALLBACK)
})
