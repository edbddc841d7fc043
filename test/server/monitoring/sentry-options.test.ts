/**
 * How @sentry/node is set up: without its Fastify instrumentation (it wrapped every hook
 * in a span and reported errors untagged), with no tracing at a traces rate of 0, and
 * with the tunnel's own traffic kept out of its HTTP instrumentation.
 */
import t from 'tap'
import { sentryNodeOptions } from '../../../server/monitoring/sentry-options.js'
import type { MonitoringConfig } from '../../../server/config.js'
import { parseDsn } from '../../../shared/monitoring.js'

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

t.test('a traces rate of 0 passes no tracing option; above 0 it is passed on', async (t) => {
  t.notOk('tracesSampleRate' in sentryNodeOptions(monitoring({ tracesSampleRate: 0 })))
  t.equal(sentryNodeOptions(monitoring({ tracesSampleRate: 0.25 })).tracesSampleRate, 0.25)
})
