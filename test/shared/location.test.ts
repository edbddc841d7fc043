/**
 * The one page key (shared/framework/location.ts): two URLs that show the same page have
 * the same key however they are encoded, and two that do not, never do.
 */
import t from 'tap'
import { canonicalLocation, pageKeyOf, parseTarget, tidyPathname } from '../../shared/framework/location.js'
import { isSameSitePath } from '../../shared/framework/errors.js'

t.test('the key of a target, case by case', async (t) => {
  const cases: Array<[target: string, key: string, why: string]> = [
    ['/', '/', 'the root'],
    ['/items/7', '/items/7', 'plain'],
    ['/items/%31', '/items/1', 'an unreserved character encoded'],
    ['/items/1?q=a%20b', '/items/1?q=a%20b', '%20 in the query'],
    ['/items/1?q=a+b', '/items/1?q=a%20b', '+ is a space in the query'],
    ['/items/1?q=a b', '/items/1?q=a%20b', 'a raw space in the query'],
    ['/a+b', '/a+b', '+ is itself in the path'],
    ['/a%2Bb', '/a+b', '%2B is + in the path'],
    ['/a%20b', '/a%20b', 'a space in the path'],
    ['/шеллы', '/%D1%88%D0%B5%D0%BB%D0%BB%D1%8B', 'non-ASCII, unencoded'],
    ['/%D1%88%D0%B5%D0%BB%D0%BB%D1%8B', '/%D1%88%D0%B5%D0%BB%D0%BB%D1%8B', 'non-ASCII, encoded'],
    ['/%d1%88%d0%b5%d0%bb%d0%bb%d1%8b', '/%D1%88%D0%B5%D0%BB%D0%BB%D1%8B', 'lower-case escapes'],
    ['/contact?name=%e5%90%8d', '/contact?name=%E5%90%8D', 'lower-case escapes in the query'],
    ['/contact?name=名', '/contact?name=%E5%90%8D', 'non-ASCII in the query'],
    ['/this-is/100%25%20true', '/this-is/100%25%20true', '%25 stays a percent sign'],
    ['/a%2Fb', '/a%2Fb', '%2F inside a segment is data, not a separator'],
    ['/a%2fb', '/a%2Fb', '%2f likewise'],
    ['/a:b@c', '/a:b@c', 'pchar reserved characters stay'],
    ['/a%3Ab%40c', '/a:b@c', 'and are decoded when encoded'],
    ["/a!$&'()*,;=b", "/a!$&'()*,;=b", 'sub-delimiters stay'],
    ['/a%3Fb', '/a%3Fb', '? inside a segment stays encoded'],
    ['/a%23b', '/a%23b', '# inside a segment stays encoded'],
    ['/a%5Cb', '/a%5Cb', 'a backslash stays encoded'],
    ['/a\\b', '/a%5Cb', 'a raw backslash is encoded'],
    ['/about?', '/about', 'an empty query is no query'],
    ['/about?#top', '/about', 'and the hash is not part of the key'],
    ['/about#top', '/about', 'the hash is never part of the key'],
    ['/items/1?b=2&a=1', '/items/1?b=2&a=1', 'query order is kept'],
    ['/items/1?a=1&a=2', '/items/1?a=1&a=2', 'repeated keys are kept, in order'],
    ['/items/1?a=1&&b=2', '/items/1?a=1&b=2', 'empty pairs are dropped, as URLSearchParams does'],
    ['/items/1?flag', '/items/1?flag=', 'a key without a value'],
    ['/items/1?x=%3D%26', '/items/1?x=%3D%26', 'reserved characters in a value stay encoded'],
    ['/items/1?q=%E0', '/items/1?q=%EF%BF%BD', 'a malformed query reads as the loader reads it (U+FFFD)'],
    ['//evil.example', '//evil.example', 'duplicate slashes are kept (the server redirects them)'],
    ['/about/', '/about/', 'a trailing slash is kept (the server redirects it)'],
  ]
  for (const [target, key, why] of cases) t.equal(parseTarget(target)?.pageKey, key, `${target}: ${why}`)
})

t.test('the browser form and the request line give one key', async (t) => {
  for (const href of ['/contact?name=名', '/this-is/100%25%20true', '/шеллы?q=a b', '/items/%31', '/a%2Fb?x=+']) {
    const url = new URL(href, 'http://localhost')
    t.equal(pageKeyOf(url.pathname, url.search), parseTarget(href)?.pageKey, href)
    t.equal(pageKeyOf(url.pathname, url.search.slice(1)), parseTarget(href)?.pageKey, `${href} (search without ?)`)
  }
})

t.test('a key is its own canonical form', async (t) => {
  for (const target of ['/this-is/100%25%20true?a=%25&b=+', '/%D1%88?q=%E5%90%8D', '/a%2Fb', '/a:b']) {
    const key = parseTarget(target)!.pageKey
    t.equal(parseTarget(key)?.pageKey, key, target)
  }
})

t.test('a malformed path has no canonical form, but still a key', async (t) => {
  for (const target of ['/items/%E0%A4%A', '/%not-valid', '/99%', '/%', '/%C0%AF', '/%ED%A0%80']) {
    t.equal(parseTarget(target), undefined, target)
  }
  t.equal(canonicalLocation('relative', ''), undefined, 'a path must start with /')
  t.equal(pageKeyOf('/99%', '?x=1'), '/99%?x=1', 'raw, so both sides agree on the error page')
})

t.test('tidy paths: no empty or dot segments, no trailing slash, never another host', async (t) => {
  const cases: Array<[string, string]> = [
    ['/', '/'],
    ['/about', '/about'],
    ['/about/', '/about'],
    ['//about', '/about'],
    ['/items//7', '/items/7'],
    ['//evil.example/', '/evil.example'],
    ['///evil.example', '/evil.example'],
    ['/a/./b', '/a/b'],
    ['/a/../b', '/b'],
    ['/../../b', '/b'],
    ['/%5Cevil.example', '/%5Cevil.example'],
    ['/%2F%2Fevil.example', '/%2F%2Fevil.example'],
  ]
  for (const [path, tidy] of cases) {
    t.equal(tidyPathname(path), tidy, path)
    t.ok(isSameSitePath(tidy), `${tidy} stays on the site`)
  }
})

t.test('what a redirect may point at', async (t) => {
  for (const ok of ['/', '/about', '/items/7?x=1', '/a%5Cb']) t.ok(isSameSitePath(ok), ok)
  for (const bad of [
    '//evil.example',
    '/\\evil.example',
    '/a\\b',
    'https://evil.example',
    'evil',
    '/\t/evil.example',
    '/\n/evil',
    '/a\r\nSet-Cookie: x=1',
    '',
  ]) {
    t.notOk(isSameSitePath(bad), JSON.stringify(bad))
  }
})
