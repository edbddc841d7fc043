/**
 * Traces are configured by the OpenTelemetry SDK's own variables (docs/deploy.md, "Traces"):
 * read here without loading any OpenTelemetry module, so an app without them pays nothing.
 * The exporter reads its endpoint, headers and timeout from the same variables itself.
 */
import { ConfigError, type Env } from '../config/types.js'

export interface TracingConfig {
  /** Where spans are posted: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is, or OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`. */
  readonly url: string
  /** `http/protobuf` (the specification's default) or `http/json`. */
  readonly protocol: 'http/protobuf' | 'http/json'
  readonly serviceName: string
  readonly sampler: { readonly kind: 'always_on' | 'always_off' | 'traceidratio'; readonly ratio: number; readonly parentBased: boolean }
  readonly batch: {
    readonly scheduledDelayMillis: number
    readonly maxQueueSize: number
    readonly maxExportBatchSize: number
    readonly exportTimeoutMillis: number
  }
}

const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio']

function count(env: Env, name: string, fallback: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!/^[0-9]{1,9}$/.test(raw) || Number(raw) === 0) throw new ConfigError(name, `must be a whole number above 0, not ${JSON.stringify(raw)}`)
  return Number(raw)
}

function sampler(env: Env): TracingConfig['sampler'] {
  const raw = (env.OTEL_TRACES_SAMPLER || 'parentbased_always_on').toLowerCase()
  if (!SAMPLERS.includes(raw)) throw new ConfigError('OTEL_TRACES_SAMPLER', `must be one of ${SAMPLERS.join(', ')}, not ${JSON.stringify(raw)}`)
  const parentBased = raw.startsWith('parentbased_')
  const kind = raw.replace('parentbased_', '') as TracingConfig['sampler']['kind']
  const arg = env.OTEL_TRACES_SAMPLER_ARG
  let ratio = 1
  if (kind === 'traceidratio' && arg !== undefined && arg !== '') {
    ratio = Number(arg)
    if (!/^[0-9.]+$/.test(arg) || !(ratio >= 0 && ratio <= 1)) {
      throw new ConfigError('OTEL_TRACES_SAMPLER_ARG', `must be a ratio from 0 to 1, not ${JSON.stringify(arg)}`)
    }
  }
  return { kind, ratio, parentBased }
}

/** Undefined (no tracing) unless an OTLP endpoint is set and the SDK is not disabled. */
export function tracingConfig(env: Env): TracingConfig | undefined {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT
  if (!endpoint || env.OTEL_SDK_DISABLED?.toLowerCase() === 'true') return undefined
  const exporter = env.OTEL_TRACES_EXPORTER?.toLowerCase()
  if (exporter === 'none') return undefined
  if (exporter && exporter !== 'otlp') throw new ConfigError('OTEL_TRACES_EXPORTER', `must be otlp or none, not ${JSON.stringify(exporter)}`)
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT']) {
    const url = env[name]
    if (url && !/^https?:\/\/[^\s]+$/i.test(url)) throw new ConfigError(name, `must be an http or https URL, not ${JSON.stringify(url)}`)
  }
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const protocol = env[name]
    if (protocol && protocol !== 'http/json' && protocol !== 'http/protobuf') {
      throw new ConfigError(name, `must be http/protobuf or http/json (grpc is not sent), not ${JSON.stringify(protocol)}`)
    }
  }
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf'
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
  return {
    url: traces || `${endpoint.replace(/\/+$/, '')}/v1/traces`,
    protocol: protocol as TracingConfig['protocol'],
    serviceName: env.OTEL_SERVICE_NAME || 'ssr-app',
    sampler: sampler(env),
    batch: {
      scheduledDelayMillis: count(env, 'OTEL_BSP_SCHEDULE_DELAY', 5000),
      maxQueueSize: count(env, 'OTEL_BSP_MAX_QUEUE_SIZE', 2048),
      maxExportBatchSize: count(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512),
      exportTimeoutMillis: count(env, 'OTEL_BSP_EXPORT_TIMEOUT', 30000),
    },
  }
}
