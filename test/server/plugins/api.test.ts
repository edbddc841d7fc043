import t from 'tap'
import { createTestApp } from '../../helpers/app.js'
import fixtureApiRoutes, { API_SECRET } from '../../fixtures/api.js'

t.test('/api', async (t) => {
  const { app } = await createTestApp(t)

  t.test('/api/health answers 200 JSON, never cached', async (t) => {
    const res = await app.inject('/api/health')
    t.equal(res.statusCode, 200)
    t.match(res.headers['content-type'], /^application\/json/)
    t.equal(res.headers['cache-control'], 'private, no-store')
    t.same(res.json(), { status: 'ok' })
  })

  t.test('/api/ready answers 200 while serving and 503 once draining', async (t) => {
    t.same((await app.inject('/api/ready')).json(), { status: 'ready' })
    app.lifecycle.draining = true
    t.teardown(() => {
      app.lifecycle.draining = false
    })
    const res = await app.inject('/api/ready')
    t.equal(res.statusCode, 503)
    t.equal(res.json().error.code, 'APP_ERR_DRAINING')
    t.equal((await app.inject('/api/health')).statusCode, 200, 'liveness is unaffected')
  })

  t.test('an unknown API path is a JSON 404 with code, message and request id', async (t) => {
    for (const [method, url] of [
      ['GET', '/api/nope'],
      ['GET', '/api'],
      ['GET', '/api/'],
      ['POST', '/api/health/more'],
      ['DELETE', '/api/nope?x=1'],
    ] as const) {
      const res = await app.inject({ method, url })
      t.equal(res.statusCode, 404, `${method} ${url}`)
      t.match(res.headers['content-type'], /^application\/json/)
      const { error } = res.json()
      t.equal(error.code, 'APP_ERR_NOT_FOUND')
      t.equal(error.message, 'Nothing was found at this address.', 'the one 404 wording of /api')
      t.notMatch(res.body, url.split('?')[0]!.slice(4) || '/api/', 'the answer does not echo the path')
      t.match(error.requestId, /^[0-9a-f-]{36}$/)
    }
  })

  t.test('a method the route does not have is a JSON 405 with Allow, not an HTML page; OPTIONS lists the methods', async (t) => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH'] as const) {
      const res = await app.inject({ method, url: '/api/health?x=1' })
      t.equal(res.statusCode, 405, method)
      t.equal(res.headers.allow, 'GET, HEAD', method)
      t.equal(res.json().error.code, 'APP_ERR_METHOD_NOT_ALLOWED', method)
      t.equal(res.json().error.message, `This API route does not take ${method} (it allows GET, HEAD).`, method)
    }
    const options = await app.inject({ method: 'OPTIONS', url: '/api/health' })
    t.equal(options.statusCode, 204)
    t.equal(options.headers.allow, 'GET, HEAD')
    t.equal((await app.inject({ method: 'POST', url: '/api/health/more' })).statusCode, 404, 'a path no route answers stays a 404')
  })
})

t.test('/api errors', async (t) => {
  const { app, logs } = await createTestApp(t, 'production', { apiRoutes: [fixtureApiRoutes] })

  t.test('a body failing its schema is a 400 that names the field', async (t) => {
    const res = await app.inject({ method: 'POST', url: '/api/echo', payload: { count: 'many' } })
    t.equal(res.statusCode, 400)
    const { error } = res.json()
    t.equal(error.code, 'APP_ERR_VALIDATION')
    t.match(error.message, /count/)
    t.match(error.requestId, /^[0-9a-f-]{36}$/)
    const ok = await app.inject({ method: 'POST', url: '/api/echo', payload: { count: 3 } })
    t.same(ok.json(), { count: 3 })
  })

  t.test('a body that is not JSON is a 400, a wrong content type a 415', async (t) => {
    const broken = await app.inject({ method: 'POST', url: '/api/echo', headers: { 'content-type': 'application/json' }, payload: '{"count":' })
    t.equal(broken.statusCode, 400)
    t.match(broken.json().error.message, /JSON/i)
    const text = await app.inject({ method: 'POST', url: '/api/echo', headers: { 'content-type': 'application/xml' }, payload: '<x/>' })
    t.equal(text.statusCode, 415)
    t.ok(text.json().error.code)
  })

  t.test('JSON only, and in UTF-8: other types, charsets and bytes are refused by name', async (t) => {
    const post = (contentType: string, payload: string | Buffer) =>
      app.inject({ method: 'POST', url: '/api/echo', headers: { 'content-type': contentType }, payload })
    const plain = await post('text/plain', '{"count":1}')
    t.equal(plain.statusCode, 415, 'text/plain (what a cross-site form or a fetch without preflight sends) is no JSON')
    t.equal(plain.json().error.code, 'APP_ERR_UNSUPPORTED_MEDIA_TYPE')
    const latin1 = await post('application/json; charset=latin1', Buffer.from('{"count":1,"n":"caf\xe9"}', 'latin1'))
    t.equal(latin1.statusCode, 415)
    t.equal(latin1.json().error.message, 'A JSON body must be UTF-8: its Content-Type names another charset.')
    for (const contentType of ['application/json; charset=utf-8', 'application/json;charset="UTF-8"', 'APPLICATION/JSON; Charset=utf8']) {
      const ok = await post(contentType, '{"count":2}')
      t.equal(ok.statusCode, 200, contentType)
      t.same(ok.json(), { count: 2 }, contentType)
    }
    const badBytes = await post('application/json', Buffer.concat([Buffer.from('{"count":1,"n":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]))
    t.equal(badBytes.statusCode, 400, 'bytes that are not UTF-8 are not read as replacement characters')
    t.equal(badBytes.json().error.message, 'The request body is not valid UTF-8.')
    t.equal(badBytes.json().error.code, 'APP_ERR_BAD_JSON')
    const bom = await post('application/json', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"count":4}')]))
    t.same(bom.json(), { count: 4 }, 'a byte order mark is skipped')
    for (const body of ['{"count":1,"__proto__":{"x":1}}', '{"count":1,"constructor":{"prototype":{"x":1}}}']) {
      const poisoned = await post('application/json', body)
      t.equal(poisoned.statusCode, 400, body)
      t.equal(poisoned.json().error.message, 'The JSON body has a "__proto__" or "constructor.prototype" key, which is refused.', body)
    }
  })

  t.test("a handler's `throw notFound()` is a 404 in the API's form, not a failure", async (t) => {
    const found = await app.inject('/api/lookup/1')
    t.equal(found.statusCode, 200)
    const res = await app.inject('/api/lookup/2')
    t.equal(res.statusCode, 404)
    t.match(res.headers['content-type'], 'application/json')
    t.match(res.json(), { error: { code: 'APP_ERR_NOT_FOUND', message: 'Nothing was found at this address.' } })
    t.notMatch(res.body, 'internal table', 'its message may be internal: not sent')
    t.notOk(
      logs.some((l) => l.level >= 50 && l.reqId === res.json().error.requestId),
      'nothing logged as an error',
    )
  })

  t.test('a failing handler is a 500 with a digest; the message stays in the log', async (t) => {
    const res = await app.inject('/api/explode')
    t.equal(res.statusCode, 500)
    const { error } = res.json()
    t.equal(error.code, 'APP_ERR_INTERNAL')
    t.equal(error.message, 'Internal server error')
    t.match(error.digest, /^[0-9a-z]+$/)
    t.notMatch(res.body, API_SECRET)
    const line = logs.find((l) => l.msg === 'api request failed' && l.digest === error.digest)
    t.equal(line?.reqId, error.requestId, 'the log line has the request id the client saw')
    t.equal(line?.err?.message, API_SECRET)
  })
})
