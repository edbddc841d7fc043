// test-needs: redis
/**
 * Traces with OpenTelemetry, received by a local OTLP/HTTP receiver: a span for each
 * request (named by its route, never its URL) with its guards, loaders, render, deferred
 * parts, action and Redis commands beneath it; a trusted proxy's `traceparent`
 * continued and anyone else's ignored; the trace id on the request's log lines and on
 * the Sentry event of its failure; nothing at all without the variables.
 */
import * as Sentry from '@sentry/node'
import t from 'tap'
import { sentryNodeOptions } from '../../server/framework/monitoring/sentry-options.js'
import { sentryReporter } from '../../server/framework/monitoring/sentry-reporter.js'
import { tracingConfig } from '../../server/framework/tracing/tracing-config.js'
import { parseDsn } from '../../shared/framework/monitoring.js'
import { createTestApp, listenTestApp } from '../helpers/app.js'
import { sessionCookie } from '../helpers/cookies.js'
import { startFakeIngest } from '../helpers/fake-ingest.js'
import { startOtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js'
import { startRedis } from '../helpers/redis.js'

const FORM = { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost:80' }
const SERVER = 2 // SpanKind.SERVER
const CLIENT = 3 // SpanKind.CLIENT, as OTLP numbers it

/** Spans exported within a few milliseconds of ending, so a test waits for them briefly. */
function tracing(url: string, extra: Record<string, string> = {}) {
  return tracingConfig({
    OTEL_EXPORTER_OTLP_ENDPOINT: url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '20',
    OTEL_SERVICE_NAME: 'notes-web',
    ...extra,
  })!
}

const childrenOf = (spans: readonly ReceivedSpan[], parent: ReceivedSpan) => spans.filter((span) => span.parentSpanId === parent.spanId)
const requestSpan = (spans: readonly ReceivedSpan[], name: string) => spans.find((span) => span.kind === SERVER && span.name === name)

t.test('a page, its data, an action and /api: a trace each, the steps beneath', async (t) => {
  const receiver = await startOtlpReceiver(t)
  const { app, logs } = await createTestApp(t, 'production', { config: { tracing: tracing(receiver.url), demoSlowMs: 30 } })

  const res = await app.inject('/items/7/stats?tags=2')
  t.equal(res.statusCode, 200)
  await receiver.waitFor((spans) => {
    const page = requestSpan(spans, 'GET stats')
    return page !== undefined && childrenOf(spans, page).some((span) => span.name.startsWith('deferred'))
  }, 'the page, and its deferred part once settled')
  const page = requestSpan(receiver.spans, 'GET stats')!
  t.equal(page.service, 'notes-web', 'OTEL_SERVICE_NAME names the service')
  t.match(page.attributes, { 'http.route': 'stats', 'http.response.status_code': 200, 'app.request.kind': 'page', 'url.path': '/items/7/stats' })
  t.notMatch(JSON.stringify(page), 'tags=2', 'the query string is nowhere in the span')
  const steps = childrenOf(receiver.spans, page)
  t.same(
    steps.map((span) => span.name).sort(),
    ['deferred data.slow', 'loader items', 'loader page', 'render'],
    'each loader, the render, the deferred part',
  )
  for (const step of steps) t.equal(step.traceId, page.traceId)
  t.match(steps.find((span) => span.name === 'deferred data.slow')!.attributes, { 'app.outcome': 'settled' })

  const lines = logs.filter((line) => line.trace_id === page.traceId)
  t.ok(
    lines.some((line) => line.msg === 'incoming request'),
    'the first log line of the request carries its trace id',
  )
  t.ok(
    lines.some((line) => line.msg === 'request completed'),
    'and the last',
  )
  t.ok(lines.every((line) => line.span_id === page.spanId))

  const data = await app.inject({ url: '/_data/items/3', headers: { 'x-layouts-held': 'root' } })
  t.equal(data.statusCode, 200)
  await receiver.waitFor((spans) => spans.some((span) => span.attributes['app.request.kind'] === 'data'), 'the page data')
  t.match(
    receiver.spans.find((span) => span.attributes['app.request.kind'] === 'data'),
    { name: 'GET items', kind: SERVER },
  )

  const star = await app.inject({ method: 'POST', url: '/items/3', headers: FORM, payload: '_action=star&id=3&starred=yes' })
  t.equal(star.statusCode, 303)
  await receiver.waitFor((spans) => spans.some((span) => span.name === 'action star'), 'the action')
  const post = requestSpan(receiver.spans, 'POST items')!
  t.equal(post.attributes['http.response.status_code'], 303)
  t.ok(
    childrenOf(receiver.spans, post).some((span) => span.name === 'action star'),
    'the action under its request',
  )

  await app.inject('/api/health')
  await receiver.waitFor((spans) => requestSpan(spans, 'GET /api/health') !== undefined, 'the /api route')
  t.match(requestSpan(receiver.spans, 'GET /api/health')!.attributes, { 'app.request.kind': 'api', 'http.route': '/api/health' })
  const health = requestSpan(receiver.spans, 'GET /api/health')!
  await receiver.waitFor((spans) => childrenOf(spans, health).length > 0, "the /api route's handler")
  t.match(
    childrenOf(receiver.spans, health).map((span) => [span.name, span.attributes['app.step']]),
    [['handler /api/health', 'handler']],
    'the handler, beneath its request',
  )

  // A scan of distinct URLs names one route, as the metrics do.
  for (let i = 0; i < 5; i++) await app.inject(`/no-such-page-${i}%F0%9F%90%88`)
  await receiver.waitFor((spans) => spans.filter((span) => span.name === 'GET unmatched').length === 5, 'five unmatched requests')
})

t.test("a trusted proxy's traceparent continues its trace; anyone else's starts a new one", async (t) => {
  const receiver = await startOtlpReceiver(t)
  const caller = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' }
  const traceparent = `00-${caller.traceId}-${caller.spanId}-01`

  const untrusted = await createTestApp(t, 'production', { config: { tracing: tracing(receiver.url) } })
  await untrusted.app.inject({ url: '/about', headers: { traceparent } })
  await receiver.waitFor((spans) => requestSpan(spans, 'GET about') !== undefined, 'the untrusted request')
  const fresh = requestSpan(receiver.spans, 'GET about')!
  t.not(fresh.traceId, caller.traceId, 'TRUST_PROXY off: the header is anyone’s, and ignored')
  t.equal(fresh.parentSpanId, undefined)

  const trusted = await createTestApp(t, 'production', { config: { tracing: tracing(receiver.url), trustProxy: ['127.0.0.1'] } })
  await trusted.app.inject({ url: '/contact', headers: { traceparent } })
  await receiver.waitFor((spans) => requestSpan(spans, 'GET contact') !== undefined, 'the trusted request')
  const continued = requestSpan(receiver.spans, 'GET contact')!
  t.equal(continued.traceId, caller.traceId, "the proxy's trace goes on")
  t.equal(continued.parentSpanId, caller.spanId)

  for (const bad of ['00-zz-00f067aa0ba902b7-01', `00-${'0'.repeat(32)}-${caller.spanId}-01`, 'garbage', `${traceparent}, ${traceparent}`]) {
    const res = await trusted.app.inject({ url: '/home-of-nothing', headers: { traceparent: bad } })
    t.equal(res.statusCode, 404, `a malformed traceparent (${bad}) is no error`)
  }
})

t.test('Redis commands are spans of the request that sent them', async (t) => {
  const receiver = await startOtlpReceiver(t)
  const redis = await startRedis(t)
  const { app } = await createTestApp(t, 'production', {
    config: { tracing: tracing(receiver.url), sessions: { store: { kind: 'redis', url: redis.url }, idleTimeoutS: 3600, absoluteTimeoutS: 7200 } },
  })
  const signIn = await app.inject({
    method: 'POST',
    url: '/login',
    headers: FORM,
    payload: '_action=signIn&email=demo%40example.com&password=demo-password&next=%2Faccount',
  })
  t.equal(signIn.statusCode, 303)
  await app.inject({ url: '/account', headers: { cookie: sessionCookie(signIn) } })
  await receiver.waitFor((spans) => {
    const account = requestSpan(spans, 'GET account')
    return account !== undefined && childrenOf(spans, account).some((span) => span.name.startsWith('redis'))
  }, "the account page's Redis read")
  const account = requestSpan(receiver.spans, 'GET account')!
  const commands = childrenOf(receiver.spans, account).filter((span) => span.name.startsWith('redis'))
  t.ok(commands.length > 0)
  for (const command of commands) {
    t.equal(command.kind, CLIENT)
    t.equal(command.attributes['db.system.name'], 'redis')
    t.notMatch(JSON.stringify(command.attributes), /app-session:[0-9a-f]{10}/, 'no session key in the span')
  }
  const login = requestSpan(receiver.spans, 'POST login')!
  t.ok(
    receiver.spans.some((span) => span.parentSpanId === login.spanId && span.name.startsWith('redis')),
    'the sign-in saved its session: a Redis span under it',
  )
})

t.test("a failure's Sentry event carries the trace id of its request", async (t) => {
  const receiver = await startOtlpReceiver(t)
  const ingest = await startFakeIngest(t)
  const dsn = parseDsn(`http://publickey@${new URL(ingest.origin).host}/1`)!
  Sentry.init(sentryNodeOptions({ dsn, allowedDsns: [dsn], environment: 'test', release: undefined, tracesSampleRate: 0, tunnelUpstream: undefined }))
  t.teardown(() => Sentry.close(2_000))
  const { app, logs } = await listenTestApp(t, 'fixture', { errorReporter: sentryReporter, config: { tracing: tracing(receiver.url) } })
  const res = await app.inject('/failing')
  t.equal(res.statusCode, 500)
  await receiver.waitFor((spans) => requestSpan(spans, 'GET failing') !== undefined, 'the failing request')
  const span = requestSpan(receiver.spans, 'GET failing')!
  t.equal(span.status, 2, 'the request span is an error')
  await ingest.waitFor(() => ingest.items('event').length === 1, 'the event')
  const [event] = ingest.items('event').map((item) => item.payload)
  t.equal(event.contexts.trace.trace_id, span.traceId, "the event's trace is the request's")
  t.equal(event.tags.trace_id, span.traceId, 'and a tag to search by')
  t.ok(
    logs.some((line) => line.msg === 'loader failed' && line.trace_id === span.traceId),
    'the error log line too: alert, log, trace and event share one id',
  )
})

t.test('without the variables: no tracing, nothing sent', async (t) => {
  const receiver = await startOtlpReceiver(t)
  t.equal(tracingConfig({}), undefined)
  t.equal(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SDK_DISABLED: 'true' }), undefined, 'OTEL_SDK_DISABLED')
  t.equal(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_TRACES_EXPORTER: 'none' }), undefined, 'OTEL_TRACES_EXPORTER=none')
  const { app, logs } = await createTestApp(t)
  t.equal(app.tracing, undefined)
  await app.inject('/items/7')
  t.notOk(
    logs.some((line) => 'trace_id' in line),
    'no trace id in the logs',
  )
  t.same(receiver.spans, [])
})

t.test('bad OpenTelemetry variables stop the start, naming the variable', async (t) => {
  const url = 'http://127.0.0.1:4318'
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, /^OTEL_EXPORTER_OTLP_ENDPOINT must be an http or https URL/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_TRACES_SAMPLER: 'sometimes' }, /^OTEL_TRACES_SAMPLER must be one of always_on/],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' },
      /^OTEL_TRACES_SAMPLER_ARG must be a ratio/,
    ],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, /^OTEL_EXPORTER_OTLP_PROTOCOL must be http\/protobuf or http\/json/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_BSP_SCHEDULE_DELAY: 'soon' }, /^OTEL_BSP_SCHEDULE_DELAY must be a whole number/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_TRACES_EXPORTER: 'zipkin' }, /^OTEL_TRACES_EXPORTER must be otlp or none/],
  ]
  for (const [env, message] of cases) t.throws(() => tracingConfig(env), message, JSON.stringify(env))
  t.equal(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: `${url}/` })!.url, `${url}/v1/traces`)
  t.equal(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: url })!.protocol, 'http/protobuf', "the specification's default")
  t.equal(
    tracingConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
    })!.protocol,
    'http/protobuf',
    'the traces variable wins',
  )
  t.equal(
    tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://x.example/traces' })!.url,
    'https://x.example/traces',
  )
  t.match(
    tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' })!.sampler,
    {
      kind: 'traceidratio',
      ratio: 0.25,
      parentBased: true,
    },
  )
})

t.test('a request refused before routing, and a visitor who leaves mid-answer: their spans end too', async (t) => {
  const receiver = await startOtlpReceiver(t)
  const { origin } = await listenTestApp(t, 'production', { config: { tracing: tracing(receiver.url), demoSlowMs: 5_000 } })
  const refused = await fetch(`${origin}/items/%E0%A4%A`)
  t.equal(refused.status, 400)
  await receiver.waitFor(
    (spans) => spans.some((span) => span.kind === SERVER && span.attributes['http.response.status_code'] === 400),
    'the refused request',
  )

  // The shell of the statistics page arrives, its slow part does not: the visitor goes.
  const leaving = new AbortController()
  const streamed = await fetch(`${origin}/items/7/stats`, { signal: leaving.signal })
  await streamed.body!.getReader().read()
  leaving.abort()
  await receiver.waitFor((spans) => spans.some((span) => span.name === 'GET stats'), 'the abandoned page')
  const left = requestSpan(receiver.spans, 'GET stats')!
  t.equal(left.attributes['app.client_left'], true, 'marked as left')
  t.equal(left.attributes['http.response.status_code'], 200, 'what it had sent')
  t.equal(left.status, 0, 'not an error of ours')
})

t.test('http/protobuf, the default protocol, posts the same spans as protobuf', async (t) => {
  const receiver = await startOtlpReceiver(t)
  const { app } = await createTestApp(t, 'production', {
    config: { tracing: tracing(receiver.url, { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' }) },
  })
  await app.inject('/about')
  await receiver.waitFor(() => receiver.protobufBodies.length > 0, 'a protobuf export')
  const [body] = receiver.protobufBodies
  t.ok(body!.includes(Buffer.from('GET about')), 'the span, named by its route, in the protobuf body')
  t.ok(body!.includes(Buffer.from('notes-web')), 'the service name')
  t.same(receiver.spans, [], 'nothing in JSON')
})

t.test('over a real connection, what runs after the body arrives stays in the request span', async (t) => {
  const receiver = await startOtlpReceiver(t)
  const redis = await startRedis(t)
  const { origin } = await listenTestApp(t, 'production', {
    config: { tracing: tracing(receiver.url), sessions: { store: { kind: 'redis', url: redis.url }, idleTimeoutS: 3600, absoluteTimeoutS: 7200 } },
  })
  // Sent as a browser sends it: the body in its own packets, after the headers.
  const signIn = await fetch(`${origin}/login`, {
    method: 'POST',
    headers: { ...FORM, origin },
    body: '_action=signIn&email=demo%40example.com&password=demo-password&next=%2Faccount',
    redirect: 'manual',
  })
  await signIn.arrayBuffer()
  t.equal(signIn.status, 303)
  await receiver.waitFor((spans) => requestSpan(spans, 'POST login') !== undefined, 'the sign-in')
  const login = requestSpan(receiver.spans, 'POST login')!
  await receiver.waitFor(
    (spans) => spans.some((span) => span.parentSpanId === login.spanId && span.name.startsWith('redis')),
    'the session saved after the form was read: a Redis span under the sign-in',
  )
  t.notOk(
    receiver.spans.some((span) => span.kind === CLIENT && span.parentSpanId === undefined),
    'no Redis command became a trace of its own',
  )
})
