/**
 * What the configuration is once read (the typed `AppConfig` the rest of the server
 * takes) and the error a bad value throws. The variables themselves are declared in
 * variables.ts.
 */
import type { HostPattern } from '../allowed-hosts.js'
import type { ParsedDsn } from '../../../shared/framework/monitoring.js'
import type { ConfiguredAccount } from './parsers.js'

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
export const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

/** Fastify's `trustProxy`: off, every hop, a hop count, or the proxies' addresses/CIDRs. */
export type TrustProxy = boolean | number | string[]

/** The values browsers know for `Cross-Origin-Opener-Policy`. */
export const OPENER_POLICIES = ['same-origin', 'same-origin-allow-popups', 'noopener-allow-popups', 'unsafe-none'] as const
export type OpenerPolicy = (typeof OPENER_POLICIES)[number]

/** SESSION_STORE: where sessions are kept (server/framework/session.ts). */
export const SESSION_STORES = ['cookie', 'memory', 'redis'] as const
export type SessionStoreKind = (typeof SESSION_STORES)[number]

export interface AppConfig {
  readonly host: string
  readonly port: number
  readonly logLevel: LogLevel
  readonly trustProxy: TrustProxy
  /** Origins besides this site's own whose pages may post forms here: `https://a.example`. */
  readonly allowedOrigins: readonly string[]
  /**
   * ALLOWED_HOSTS: the host names (as the client reached us, through a trusted proxy)
   * this server answers; undefined when unset (server/framework/allowed-hosts.ts then decides
   * from HOST).
   */
  readonly allowedHosts: readonly HostPattern[] | undefined
  /** The client build: the hashed assets and manifest.json that scripts/build.ts wrote. */
  readonly clientDir: string
  readonly monitoring: MonitoringConfig
  /** Budgets per client address for form posts and the monitoring tunnel, and where they are counted. */
  readonly rateLimit: RateLimitConfig
  /**
   * SESSION_SECRET, then SESSION_SECRET_PREVIOUS: the first seals sessions, both open
   * them. Empty when unset (a key is made at start: server/framework/session.ts).
   */
  readonly sessionSecrets: readonly string[]
  /** Where sessions are kept, and how long they last. */
  readonly sessions: SessionConfig
  /** After SIGTERM: how long /api/ready says 503 while the instance still serves, so balancers notice. */
  readonly shutdownDelayMs: number
  /** After that: the most time in-flight requests get to finish before the process exits anyway. */
  readonly shutdownGraceMs: number
  /** UPLOAD_DIR: where files posted to actions are kept while the action runs (a writable folder). */
  readonly uploadDir: string
  /** UPLOAD_MAX_BYTES: the most bytes one form with files may have in all, whatever its fields allow. */
  readonly uploadMaxBytes: number
  /** The most log bytes that may wait in memory for stdout; past it lines are dropped and counted (server/framework/log-destination.ts). */
  readonly logBufferBytes: number
  /** COMPRESSION: `on` (the default) compresses answers in the process; `off` leaves it to a proxy in front. */
  readonly compression: boolean
  /**
   * CROSS_ORIGIN_OPENER_POLICY: the `Cross-Origin-Opener-Policy` of every answer the
   * app's hooks see; undefined (the default) sends none.
   */
  readonly openerPolicy: OpenerPolicy | undefined
  /** DEMO_ACCOUNT: the demo product's account, its password hashed; undefined when unset. */
  readonly demoAccount: ConfiguredAccount | undefined
  /** DEMO_SLOW_MS: how long the demo's deferred statistics take. */
  readonly demoSlowMs: number
}

/** Budgets per client address (server/framework/plugins/rate-limit.ts); a budget of 0 is no limit. */
export interface RateLimitConfig {
  /** RATE_LIMIT_FORMS: form posts per window. */
  readonly forms: number
  /** RATE_LIMIT_MONITORING: envelopes through the monitoring tunnel per window. */
  readonly monitoring: number
  /** RATE_LIMIT_WINDOW_MS: the window both budgets are counted over. */
  readonly windowMs: number
  /** REDIS_URL: where the counts are kept, shared by every instance; in memory when unset. */
  readonly redisUrl: string | undefined
}

/** Sessions (server/framework/session.ts, docs/decisions/031-session-stores.md). */
export interface SessionConfig {
  /**
   * SESSION_STORE: `cookie`, the whole session sealed in the cookie; `memory`, kept in
   * this process; `redis`, kept in Redis at REDIS_URL. With a store, the cookie carries
   * a random id only, and a session ended on the server is ended for every copy of it.
   */
  readonly store: { readonly kind: 'cookie' } | { readonly kind: 'memory' } | { readonly kind: 'redis'; readonly url: string }
  /** SESSION_IDLE_TIMEOUT: a session unused for this long (seconds) is over. */
  readonly idleTimeoutS: number
  /** SESSION_ABSOLUTE_TIMEOUT: a session this old (seconds from its start) is over, however much it is used. */
  readonly absoluteTimeoutS: number
}

export interface MonitoringConfig {
  /** SENTRY_DSN: where errors of this app go; none turns monitoring off entirely. */
  readonly dsn: ParsedDsn | undefined
  /** The DSNs the tunnel forwards to: SENTRY_DSN plus SENTRY_ALLOWED_DSNS. */
  readonly allowedDsns: readonly ParsedDsn[]
  readonly environment: string
  /** SENTRY_RELEASE; the build id when unset, so events name the code that ran. */
  readonly release: string | undefined
  readonly tracesSampleRate: number
  /** SENTRY_TUNNEL_UPSTREAM: send envelopes here instead of the DSN's host (tests, relays). */
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
