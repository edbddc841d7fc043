/**
 * The OpenTelemetry tracer (docs/deploy.md, "Traces"; decision 042), loaded only when
 * tracing is configured: a tracer provider of the app's own (not registered globally, so
 * it never competes with another), spans exported in batches over OTLP/HTTP (JSON),
 * W3C `traceparent` read from a trusted proxy, and Redis commands from ioredis's own
 * diagnostics channel.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import type { IncomingMessage } from 'node:http'
import type { Context, Span, TextMapGetter } from '@opentelemetry/api'
import type { Sampler } from '@opentelemetry/sdk-trace'
import type { TracingConfig } from './tracing-config.js'
import type { Tracing } from './tracing.js'

// Imported when tracing starts, not at the top: the server's bundle inlines this module,
// and would hoist static imports of packages to its top, loading them at every start.
const [
  { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace },
  { AsyncLocalStorageContextManager },
  { W3CTraceContextPropagator },
  { resourceFromAttributes },
  { AlwaysOffSampler, AlwaysOnSampler, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider },
] = await Promise.all([
  import('@opentelemetry/api'),
  import('@opentelemetry/context-async-hooks'),
  import('@opentelemetry/core'),
  import('@opentelemetry/resources'),
  import('@opentelemetry/sdk-trace'),
])

const headerGetter: TextMapGetter<IncomingMessage['headers']> = {
  keys: (headers) => Object.keys(headers),
  get: (headers, key) => headers[key],
}

function samplerOf({ kind, ratio, parentBased }: TracingConfig['sampler']): Sampler {
  const root = kind === 'always_on' ? new AlwaysOnSampler() : kind === 'always_off' ? new AlwaysOffSampler() : new TraceIdRatioBasedSampler(ratio)
  return parentBased ? new ParentBasedSampler({ root }) : root
}

/** The context manager is the process's (one per process, as AsyncLocalStorage is); set once. */
let contextManagerSet = false

interface RedisCommandContext {
  readonly command?: string
  readonly args?: readonly string[]
  readonly batchMode?: string
  readonly batchSize?: number
  readonly database?: number
  readonly serverAddress?: string
  readonly serverPort?: number
}

export async function startTracer(config: TracingConfig, version: string): Promise<Tracing> {
  // Only the exporter the protocol needs is loaded.
  const { OTLPTraceExporter } =
    config.protocol === 'http/json'
      ? await import('@opentelemetry/exporter-trace-otlp-http')
      : await import('@opentelemetry/exporter-trace-otlp-proto')
  if (!contextManagerSet) {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
    contextManagerSet = true
  }
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName, 'service.version': version }),
    sampler: samplerOf(config.sampler),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: config.url }), ...config.batch })],
  })
  const tracer = provider.getTracer('ssr-app')
  const propagator = new W3CTraceContextPropagator()

  // ioredis publishes each command and MULTI on tracing channels: a span each, under whatever span is active.
  const redisSpans = new WeakMap<object, Span>()
  const redisStart = (name: string) => (message: unknown) => {
    const command = message as RedisCommandContext
    const active = context.active()
    if (!trace.getSpan(active)) return // a command outside any request (a health check's ping, a reconnect)
    const operation = command.command ?? command.batchMode ?? name
    redisSpans.set(
      message as object,
      tracer.startSpan(
        `redis ${operation}`,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            'db.system.name': 'redis',
            'db.operation.name': operation,
            'db.namespace': String(command.database ?? 0),
            ...(command.serverAddress ? { 'server.address': command.serverAddress } : {}),
            ...(command.serverPort ? { 'server.port': command.serverPort } : {}),
            ...(command.batchSize !== undefined ? { 'db.operation.batch.size': command.batchSize } : {}),
          },
        },
        active,
      ),
    )
  }
  const redisEnd = (message: unknown) => {
    redisSpans.get(message as object)?.end()
    redisSpans.delete(message as object)
  }
  const redisError = (message: unknown) => {
    const span = redisSpans.get(message as object)
    const error = (message as { error?: unknown }).error
    span?.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) })
    // A command that throws at once has no asyncEnd: ended here, and asyncEnd finds nothing.
    span?.end()
    redisSpans.delete(message as object)
  }
  const channels = ['command', 'batch'].flatMap((kind) => {
    const start = redisStart(kind)
    return [
      [`tracing:ioredis:${kind}:start`, start],
      [`tracing:ioredis:${kind}:asyncEnd`, redisEnd],
      [`tracing:ioredis:${kind}:error`, redisError],
    ] as const
  })
  for (const [channel, listener] of channels) subscribe(channel, listener)

  return {
    startRequest(raw, trustedPeer) {
      const parent = trustedPeer ? propagator.extract(ROOT_CONTEXT, raw.headers, headerGetter) : ROOT_CONTEXT
      const span = tracer.startSpan(raw.method ?? 'HTTP', { kind: SpanKind.SERVER, attributes: { 'http.request.method': raw.method ?? '' } }, parent)
      return { span, context: trace.setSpan(parent, span) }
    },
    startChild(parent: Context, name, attributes, kind = SpanKind.INTERNAL) {
      return tracer.startSpan(name, { kind, attributes }, parent)
    },
    run: (spanContext, work) => context.with(spanContext, work),
    activeContext: () => context.active(),
    injectInto(headers) {
      propagator.inject(context.active(), headers, { set: (carrier, key, value) => (carrier[key] = value) })
    },
    async shutdown() {
      for (const [channel, listener] of channels) unsubscribe(channel, listener)
      await provider.shutdown()
    },
    forceFlush: () => provider.forceFlush(),
  }
}
