/** Reads the environment through the declarations (variables.ts) into `AppConfig`. */
import { ConfigError, type AppConfig, type Env, type SessionConfig, type SessionStoreKind } from './types.js'
import { VARIABLES, type Values, type Variable } from './variables.js'
import { tracingConfig } from '../tracing/tracing-config.js'

/** Empty counts as unset, for most. */
function read<T>(variable: Variable<string, T>, raw: string | undefined): T {
  const unset = raw === undefined || (raw === '' && variable.emptyIsUnset !== false)
  if (!unset) return variable.parse(raw, variable.name)
  const shown = variable.default
  return 'literal' in shown ? variable.parse(shown.literal, variable.name) : shown.value()
}

export function readVariables(env: Env): Values {
  return readEach(VARIABLES, env) as Values
}

function readEach(variables: readonly Variable[], env: Env): Record<string, unknown> {
  const values: Record<string, unknown> = {}
  for (const variable of variables) values[variable.name] = read(variable, env[variable.name])
  return values
}

/** A product variable of a framework variable's name would read the same text two ways. */
function checkProductNames(variables: readonly Variable[]): void {
  const taken = new Set((VARIABLES as readonly Variable[]).map((variable) => variable.name))
  for (const { name } of variables) {
    if (taken.has(name)) throw new Error(`The product declares the configuration variable ${name} twice, or one the framework declares: rename it`)
    taken.add(name)
  }
}

function sessionSecrets(current: string | undefined, previous: string | undefined): string[] {
  if (previous !== undefined && current === undefined) {
    throw new ConfigError('SESSION_SECRET_PREVIOUS', 'is for rotating SESSION_SECRET: set SESSION_SECRET too')
  }
  return [current, previous].filter((secret): secret is string => secret !== undefined)
}

function sessionStore(kind: SessionStoreKind, redisUrl: string | undefined): SessionConfig['store'] {
  if (kind !== 'redis') return { kind }
  if (redisUrl === undefined) throw new ConfigError('SESSION_STORE', 'is "redis", which keeps sessions at REDIS_URL: set REDIS_URL too')
  return { kind, url: redisUrl }
}

/** The framework's variables first, then the product's (`productVariables`), each in its declared order. */
export function loadConfig(env: Env = process.env, productVariables: readonly Variable[] = []): AppConfig {
  checkProductNames(productVariables)
  const v = readVariables(env)
  const product = readEach(productVariables, env)
  return {
    host: v.HOST,
    port: v.PORT,
    logLevel: v.LOG_LEVEL,
    trustProxy: v.TRUST_PROXY,
    allowedOrigins: v.ALLOWED_ORIGINS,
    allowedHosts: v.ALLOWED_HOSTS,
    clientDir: v.CLIENT_DIR,
    monitoring: {
      dsn: v.SENTRY_DSN,
      allowedDsns: [...(v.SENTRY_DSN ? [v.SENTRY_DSN] : []), ...v.SENTRY_ALLOWED_DSNS],
      environment: v.SENTRY_ENVIRONMENT,
      release: v.SENTRY_RELEASE,
      tracesSampleRate: v.SENTRY_TRACES_SAMPLE_RATE,
      tunnelUpstream: v.SENTRY_TUNNEL_UPSTREAM,
    },
    rateLimit: {
      forms: v.RATE_LIMIT_FORMS,
      monitoring: v.RATE_LIMIT_MONITORING,
      windowMs: v.RATE_LIMIT_WINDOW_MS,
      redisUrl: v.REDIS_URL,
    },
    sessionSecrets: sessionSecrets(v.SESSION_SECRET, v.SESSION_SECRET_PREVIOUS),
    sessions: {
      store: sessionStore(v.SESSION_STORE, v.REDIS_URL),
      idleTimeoutS: v.SESSION_IDLE_TIMEOUT,
      absoluteTimeoutS: v.SESSION_ABSOLUTE_TIMEOUT,
    },
    metrics: v.METRICS_PORT === undefined ? undefined : { port: v.METRICS_PORT, host: v.METRICS_HOST ?? v.HOST },
    serverTiming: v.SERVER_TIMING,
    tracing: tracingConfig(env),
    shedding: { maxEventLoopDelayMs: v.MAX_EVENT_LOOP_DELAY_MS, maxEventLoopUtilization: v.MAX_EVENT_LOOP_UTILIZATION },
    shutdownDelayMs: v.SHUTDOWN_DELAY_MS,
    shutdownGraceMs: v.SHUTDOWN_GRACE_MS,
    uploadDir: v.UPLOAD_DIR,
    uploadMaxBytes: v.UPLOAD_MAX_BYTES,
    logBufferBytes: v.LOG_BUFFER_BYTES,
    compression: v.COMPRESSION,
    openerPolicy: v.CROSS_ORIGIN_OPENER_POLICY,
    demoSlowMs: v.DEMO_SLOW_MS,
    product,
  }
}
