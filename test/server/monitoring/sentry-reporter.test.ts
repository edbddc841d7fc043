/**
 * Server failures reach Sentry through the real @sentry/node SDK, sending real
 * envelopes to the fake ingest: one event per 5xx, tagged with the digest the page
 * shows, the route and the request id; nothing for redirects, not-founds, validation
 * failures or other 4xx.
 */
import * as Sentry from '@sentry/node'
import t from 'tap'
import { sentryNodeOptions } from '../../../server/framework/monitoring/sentry-options.js'
import { sentryReporter } from '../../../server/framework/monitoring/sentry-reporter.js'
import { parseDsn } from '../../../shared/framework/monitoring.js'
import { listenTestApp } from '../../helpers/app.js'
import { startFakeIngest } from '../../helpers/fake-ingest.js'
import fixtureApiRoutes from '../../fixtures/api.js'

t.test('server failures in Sentry', async (t) => {
  const ingest = await startFakeIngest(t)
  const dsn = parseDsn(`http://publickey@${new URL(ingest.origin).host}/1`)!
  Sentry.init(sentryNodeOptions({ dsn, allowedDsns: [dsn], environment: 'test', release: undefined, tracesSampleRate: 0, tunnelUpstream: undefined }))
  t.teardown(() => Sentry.close(2_000))
  const { app, logs, origin } = await listenTestApp(t, 'fixture', { errorReporter: sentryReporter, apiRoutes: [fixtureApiRoutes] })
  const events = () => ingest.items('event').map((item) => item.payload)

  t.test('expected outcomes produce no event', async (t) => {
    const origin = { origin: 'http://localhost:80', 'content-type': 'application/x-www-form-urlencoded' }
    await app.inject('/moved') // redirect
    await app.inject('/missing/absent') // notFound()
    await app.inject('/nope') // no route
    await app.inject('/forbidden') // HttpError 403
    await app.inject({ method: 'POST', url: '/guestbook', headers: origin, payload: '_action=sign&name=R2-D2' }) // 422
    await app.inject({ method: 'POST', url: '/guestbook', headers: { ...origin, origin: 'https://evil.example' }, payload: '_action=sign' }) // 403
    await app.inject({ method: 'POST', url: '/api/echo', payload: { count: 'x' } }) // 400
    await Sentry.flush(2_000)
    t.same(events(), [])
  })

  t.test('a failing loader: one event, tagged with the digest on the page, the route and the request id', async (t) => {
    const res = await app.inject('/failing')
    const digest = /Digest: ([0-9a-z]+)/.exec(res.body)![1]
    await ingest.waitFor(() => events().length === 1, 'the event')
    const [event] = events()
    t.equal(event.tags.digest, digest)
    t.equal(event.tags.route, 'failing')
    const line = logs.find((l) => l.msg === 'loader failed' && l.digest === digest)!
    t.equal(event.tags.request_id, line.reqId, 'the request id of the log line')
    t.equal(event.exception.values[0].value, line.err!.message)
    t.equal(event.environment, 'test')
  })

  t.test('failing page data, actions, renders and /api each report once', async (t) => {
    const before = events().length
    await app.inject('/_data/failing')
    await app.inject({
      method: 'POST',
      url: '/guestbook',
      headers: { origin: 'http://localhost:80', 'content-type': 'application/x-www-form-urlencoded' },
      payload: '_action=explode&name=x',
    })
    await app.inject('/render-crash')
    await app.inject('/api/explode')
    await ingest.waitFor(() => events().length === before + 4, 'four more events')
    const latest = events().slice(before)
    t.same(latest.map((e) => e.tags.route ?? null).sort(), ['failing', 'guestbook', 'render-crash', null].sort())
    t.equal(latest.find((e) => e.tags.route === 'guestbook').tags.action, 'explode')
    t.ok(latest.find((e) => e.exception.values[0].value === 'kaboom internals').tags.digest, 'the /api failure is ours, tagged')
    for (const event of latest) t.match(event.tags.digest, /^[0-9a-z]+$/)
    await Sentry.flush(2_000)
    t.equal(events().length, before + 4, 'no duplicates')
  })

  t.test('over a real connection: the client address the app trusts, and no cookie values', async (t) => {
    const before = events().length
    const res = await fetch(`${origin}/failing?q=1`, {
      headers: {
        // Not trusted: TRUST_PROXY is off, so the client is the socket's peer.
        'x-forwarded-for': '203.0.113.9',
        'x-real-ip': '203.0.113.10',
        cookie: 'theme=dark; tracking=abc123; sid=s3cret',
      },
    })
    t.equal(res.status, 500)
    await ingest.waitFor(() => events().length === before + 1, 'the event')
    const event = events()[before]
    t.equal(event.user?.ip_address, '127.0.0.1', 'the peer, not a header anyone can send')
    const sent = JSON.stringify(event)
    for (const secret of ['203.0.113.9', '203.0.113.10', 'abc123', 's3cret']) t.notMatch(sent, secret, `${secret} is not sent`)
    t.same(event.request?.cookies ?? {}, {}, 'no cookie values')
    t.notOk(/dark/.test(JSON.stringify(event.request ?? {})), 'not even the theme')
    t.equal(event.request?.method, 'GET')
    t.match(event.request?.url, /\/failing/, 'the request is still described')
  })
})
