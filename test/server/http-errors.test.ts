import t from 'tap'
import { sameSiteLocation } from '../../server/framework/error-responses.js'
import { requestKindOfTarget } from '../../server/framework/request-kinds.js'

t.test('a redirect Location is checked where it is sent', async (t) => {
  t.equal(sameSiteLocation('/about'), '/about')
  t.equal(sameSiteLocation('/items/7?x=1#top'), '/items/7?x=1#top')
  t.equal(sameSiteLocation('/café'), '/caf%C3%A9', 'non-ASCII is percent-encoded: a header carries ASCII only')
  t.equal(sameSiteLocation('/日本 x'), '/%E6%97%A5%E6%9C%AC%20x')
  for (const bad of ['//evil.example', '/\\evil.example', 'https://evil.example', '/a\r\nSet-Cookie: x', '/\t/evil.example', 'about']) {
    t.throws(() => sameSiteLocation(bad), TypeError, JSON.stringify(bad))
  }
})

t.test('the kind of a request target, by its prefix', async (t) => {
  const cases: Array<[string, ReturnType<typeof requestKindOfTarget>]> = [
    ['/api', 'api'],
    ['/api/health?x=1', 'api'],
    ['/apiary', 'page'],
    ['/_data/items/7', 'data'],
    ['/_database', 'page'],
    ['/monitoring?o=1', 'monitoring'],
    ['/monitoring-dashboard', 'page'],
    ['/assets/x.js', 'assets'],
    ['/', 'page'],
    ['http://localhost/api/x', 'api'],
  ]
  for (const [target, kind] of cases) t.equal(requestKindOfTarget(target), kind, target)
})
