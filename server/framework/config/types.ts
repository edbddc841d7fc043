/** The configuration once read, and the error a bad value throws; the variables are in variables.ts. */
import type { HostPattern } from '../allowed-hosts.js'
import type { ParsedDsn } from '../../../shared/framework/monitoring.js'

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
export const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

/** Fastify's `trustProxy`: off, every hop, a hop count, or the proxies' addresses/CIDRs. */
export type TrustProxy = boolean | number | string[]

export const OPENER_POLICIES = ['same-origin', 'same-origin-allow-popups', 'noopener-allow-popups', 'unsafe-none'] as const
export type OpenerPolicy = (typeof OPENER_POLICIES)[number]

export const SESSION_STORES = ['cookie', 'memory', 'redis'] as const
export type SessionStoreKind = (typeof SESSION_STORES)[number]

import type { TracingConfig } from '../tracing/tracing-config.js'

export interface AppConfig {
  readonly host: string
  readonly port: number
  readonly logLevel: LogLevel
  readonly trustProxy: TrustProxy
  readonly allowedOrigins: readonly string[]
  /** Undefined when unset: server/framework/allowed-hosts.ts then decides from HOST. */
  readonly allowedHosts: readonly HostPattern[] | undefined
  readonly clientDir: string
  readonly monitoring: MonitoringConfig
  readonly rateLimit: RateLimitConfig
  /** The first seals sessions, all open them. Empty when unset: a key is made at start (server/framework/session.ts). */
  readonly sessionSecrets: readonly string[]
  readonly sessions: SessionConfig
  /** Undefined when METRICS_PORT is unset: no metrics are kept at all. */
  readonly metrics: { readonly port: number; readonly host: string } | undefined
  /** From the OpenTelemetry SDK's variables; undefined: no traces, and no module of the OpenTelemetry SDK loaded. */
  readonly tracing: TracingConfig | undefined
  /** Each 0 when its check is off (server/framework/load-shedding.ts). */
  readonly shedding: { readonly maxEventLoopDelayMs: number; readonly maxEventLoopUtilization: number }
  /** A Server-Timing header on what the app computes (off by default: it tells how long each step took). */
  readonly serverTiming: boolean
  /** After SIGTERM: how long /api/ready says 503 while the instance still serves, so balancers notice. */
  readonly shutdownDelayMs: number
  readonly shutdownGraceMs: number
  readonly uploadDir: string
  readonly uploadMaxBytes: number
  readonly logBufferBytes: number
  readonly compression: boolean
  /** Undefined (the default) sends none. */
  readonly openerPolicy: OpenerPolicy | undefined
  /** The product's own variables (config/product.ts), by name; `ProductConfig.of` reads them typed. */
  readonly product: Readonly<Record<string, unknown>>
  readonly demoSlowMs: number
}

/** Per client address (server/framework/plugins/rate-limit.ts); a budget of 0 is no limit. */
export interface RateLimitConfig {
  readonly forms: number
  readonly monitoring: number
  readonly windowMs: number
  /** Counts shared by every instance; in memory when unset. */
  readonly redisUrl: string | undefined
}

/** Sessions (server/framework/session.ts, docs/decisions/031-session-stores.md). */
export interface SessionConfig {
  /** With a store, the cookie carries a random id only, and a session ended on the server is ended for every copy. */
  readonly store: { readonly kind: 'cookie' } | { readonly kind: 'memory' } | { readonly kind: 'redis'; readonly url: string }
  readonly idleTimeoutS: number
  /** From its start, however much it is used. */
  readonly absoluteTimeoutS: number
}

export interface MonitoringConfig {
  /** None turns monitoring off entirely. */
  readonly dsn: ParsedDsn | undefined
  /** SENTRY_DSN plus SENTRY_ALLOWED_DSNS. */
  readonly allowedDsns: readonly ParsedDsn[]
  readonly environment: string
  /** The build id when unset, so events name the code that ran. */
  readonly release: string | undefined
  readonly tracesSampleRate: number
  readonly tunnelUpstream: string | undefined
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable} ${problem}`)
    this.name = 'ConfigError'
  }
}

export type Env = Readonly<Record<string, string | undefined>>
