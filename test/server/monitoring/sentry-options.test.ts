/**
 * How @sentry/node is set up: without its Fastify instrumentation (it wrapped every hook
 * in a span and reported errors untagged), with no tracing at a traces rate of 0, with
 * the tunnel's own traffic kept out of its HTTP instrumentation, and no request bodies.
 */
import t from 'tap'
import { sentryNodeOptions, untracedTraffic } from '../../../server/framework/monitoring/sentry-options.js'
import type { MonitoringConfig } from '../../../server/framework/config.js'
import { parseDsn } from '../../../shared/framework/monitoring.js'

const dsn = parseDsn('https://publickey@o1.ingest.sentry.io/42')!
const monitoring = (overrides: Partial<MonitoringConfig> = {}) => ({
  dsn,
  allowedDsns: [dsn],
  environment: 'test',
  release: undefined,
  tracesSampleRate: 0,
  tunnelUpstream: undefined,
  ...overrides,
})

t.test('the integrations: the defaults without Fastify, and one Http integration of ours', async (t) => {
  const { integrations } = sentryNodeOptions(monitoring({ tracesSampleRate: 0.5 }))
  if (typeof integrations !== 'function') throw new Error('integrations is a function of the defaults')
  const defaults = [{ name: 'Fastify' }, { name: 'Http' }, { name: 'OnUncaughtException' }] as Parameters<typeof integrations>[0]
  const names = integrations(defaults).map((integration) => integration.name)
  t.notOk(names.includes('Fastify'), 'no Fastify instrumentation')
  t.equal(names.filter((name) => name === 'Http').length, 1, 'one Http integration')
  t.ok(names.includes('OnUncaughtException'), 'the other defaults stay')
})

t.test('no request body goes with a report (a form could hold a password), nor user data, nor cookies', async (t) => {
  const { dataCollection } = sentryNodeOptions(monitoring())
  t.same(dataCollection?.httpBodies, [], 'no bodies: the HTTP instrumentation keeps none')
  t.equal(dataCollection?.userInfo, false)
  t.equal(dataCollection?.cookies, false)
})

t.test('a traces rate of 0 passes no tracing option; above 0 it is passed on', async (t) => {
  t.notOk('tracesSampleRate' in sentryNodeOptions(monitoring({ tracesSampleRate: 0 })))
  t.equal(sentryNodeOptions(monitoring({ tracesSampleRate: 0.25 })).tracesSampleRate, 0.25)
})

t.test('the tunnel path exactly is left untraced, and the ingest URLs it forwards to', async (t) => {
  const { ignoreIncomingRequests, ignoreOutgoingRequests } = untracedTraffic(
    monitoring({ allowedDsns: [dsn], tunnelUpstream: 'http://127.0.0.1:9999' }),
  )
  t.ok(ignoreIncomingRequests('/monitoring'), 'the tunnel')
  t.ok(ignoreIncomingRequests('/monitoring?o=1&p=42'), 'the tunnel with its query')
  t.notOk(ignoreIncomingRequests('/monitoring-dashboard'), 'a page whose path starts like the tunnel')
  t.notOk(ignoreIncomingRequests('/monitoring/x'), 'a page below it')
  t.notOk(ignoreIncomingRequests('/items/7'), 'a page')
  t.ok(ignoreOutgoingRequests('http://127.0.0.1:9999/api/42/envelope/'), "the tunnel's own forwarding")
  t.notOk(ignoreOutgoingRequests('http://127.0.0.1:9999/api/43/envelope/'), 'another project')
  t.notOk(ignoreOutgoingRequests('https://example.com/'), 'anything else the app fetches')
})
