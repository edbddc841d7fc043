/**
 * Configuration from environment variables (docs/architecture.md, "Operations"), validated once at start: a
 * bad value throws a ConfigError naming the variable, and main.ts exits 1 with it.
 * Each variable is parsed here and nowhere else; the rest of the server takes the
 * typed `AppConfig`.
 */
import { accessSync, constants, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import proxyAddr from '@fastify/proxy-addr'
import { parseHostPattern, type HostPattern } from './allowed-hosts.js'
import { parseDsn, type ParsedDsn } from '../../shared/framework/monitoring.js'

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
/** Fastify's `trustProxy`: off, every hop, a hop count, or the proxies' addresses/CIDRs. */
export type TrustProxy = boolean | number | string[]

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
}

/** The values browsers know for `Cross-Origin-Opener-Policy`. */
export const OPENER_POLICIES = ['same-origin', 'same-origin-allow-popups', 'noopener-allow-popups', 'unsafe-none'] as const
export type OpenerPolicy = (typeof OPENER_POLICIES)[number]

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

type Env = Readonly<Record<string, string | undefined>>

/** 10 MiB: the demo's largest file (5 MiB) with room to spare. */
export const DEFAULT_UPLOAD_MAX_BYTES = 10 * 1024 * 1024
/** Minutes of a busy server's request log, far below a container's memory. */
export const DEFAULT_LOG_BUFFER_BYTES = 16 * 1024 * 1024

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

function parseMilliseconds(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback
  if (!/^\d{1,7}$/.test(raw)) throw new ConfigError(name, `must be a whole number of milliseconds (0 to 9999999), got "${raw}"`)
  return Number(raw)
}

function parsePort(name: string, raw: string): number {
  const port = Number(raw)
  if (!/^\d+$/.test(raw) || port > 65535) {
    // 0 asks the system for a free port (the log line says which).
    throw new ConfigError(name, `must be a port number from 0 to 65535, got "${raw}"`)
  }
  return port
}

function parseTrustProxy(name: string, raw: string): TrustProxy {
  if (raw === 'false' || raw === '') return false
  if (raw === 'true') return true
  if (/^\d+$/.test(raw)) return Number(raw)
  const entries = raw.split(',').map((entry) => entry.trim())
  // The library Fastify hands the list to decides what is valid, so a value that
  // passes here cannot fail later inside Fastify.
  for (const entry of entries) {
    try {
      proxyAddr.compile(entry)
    } catch {
      throw new ConfigError(
        name,
        `must be "true", "false", a hop count, or a comma-separated list of addresses, CIDRs or ` +
          `the names loopback, linklocal, uniquelocal; "${entry}" is none of these`,
      )
    }
  }
  return entries
}

function parseOrigins(name: string, raw: string): string[] {
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      let url: URL | undefined
      try {
        url = new URL(entry)
      } catch {}
      if (!url || !/^https?:$/.test(url.protocol) || url.origin !== entry.replace(/\/$/, '')) {
        throw new ConfigError(name, `must be a comma-separated list of origins like https://app.example.com; "${entry}" is not one`)
      }
      return url.origin
    })
}

function parseHosts(name: string, raw: string): HostPattern[] {
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
  if (entries.length === 0) throw new ConfigError(name, 'must name at least one host, like app.example.com')
  return entries.map((entry) => {
    const pattern = parseHostPattern(entry)
    if (!pattern) {
      throw new ConfigError(
        name,
        `must be a comma-separated list of host names, each with an optional port (app.example.com, ` +
          `.example.com for its subdomains too, localhost:3000, [::1], or * for any); "${entry}" is not one`,
      )
    }
    return pattern
  })
}

const MIN_SECRET_LENGTH = 32

function parseSessionSecrets(env: Env): string[] {
  const current = env.SESSION_SECRET || undefined
  const previous = env.SESSION_SECRET_PREVIOUS || undefined
  for (const [name, value] of [['SESSION_SECRET', current], ['SESSION_SECRET_PREVIOUS', previous]] as const) {
    if (value !== undefined && value.length < MIN_SECRET_LENGTH) {
      throw new ConfigError(
        name,
        `must be at least ${MIN_SECRET_LENGTH} characters (a random string, such as the output of \`openssl rand -base64 32\`); it has ${value.length}`,
      )
    }
  }
  if (previous !== undefined && current === undefined) {
    throw new ConfigError('SESSION_SECRET_PREVIOUS', 'is for rotating SESSION_SECRET: set SESSION_SECRET too')
  }
  return [current, previous].filter((secret): secret is string => secret !== undefined)
}

function parseDsnVariable(name: string, raw: string): ParsedDsn {
  const dsn = parseDsn(raw)
  if (!dsn) throw new ConfigError(name, `must be a Sentry DSN like https://<key>@o1.ingest.sentry.io/2; "${raw}" is not one`)
  return dsn
}

function parseMonitoring(env: Env): MonitoringConfig {
  const dsn = env.SENTRY_DSN ? parseDsnVariable('SENTRY_DSN', env.SENTRY_DSN) : undefined
  const extra = (env.SENTRY_ALLOWED_DSNS ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => parseDsnVariable('SENTRY_ALLOWED_DSNS', entry))
  const rateText = env.SENTRY_TRACES_SAMPLE_RATE ?? '0'
  const rate = Number(rateText)
  if (!/^\d*\.?\d+$/.test(rateText) || rate > 1) {
    throw new ConfigError('SENTRY_TRACES_SAMPLE_RATE', `must be a number from 0 to 1, got "${rateText}"`)
  }
  let tunnelUpstream: string | undefined
  if (env.SENTRY_TUNNEL_UPSTREAM) {
    let url: URL | undefined
    try {
      url = new URL(env.SENTRY_TUNNEL_UPSTREAM)
    } catch {}
    if (!url || !/^https?:$/.test(url.protocol) || url.pathname.replace(/\/+$/, '') !== '' || url.search) {
      throw new ConfigError('SENTRY_TUNNEL_UPSTREAM', `must be an origin like http://127.0.0.1:9000, got "${env.SENTRY_TUNNEL_UPSTREAM}"`)
    }
    tunnelUpstream = url.origin
  }
  return {
    dsn,
    allowedDsns: [...(dsn ? [dsn] : []), ...extra],
    environment: env.SENTRY_ENVIRONMENT || 'production',
    release: env.SENTRY_RELEASE || undefined,
    tracesSampleRate: rate,
    tunnelUpstream,
  }
}

function parseUploadDir(name: string, raw: string): string {
  if (!path.isAbsolute(raw)) throw new ConfigError(name, `must be an absolute path, got "${raw}"`)
  // Checked now, not at the first upload: a read-only or missing mount is an operator's mistake to see at start.
  try {
    if (!statSync(raw).isDirectory()) throw new Error('not a folder')
    accessSync(raw, constants.W_OK)
  } catch {
    throw new ConfigError(name, `must be a folder this process can write to; "${raw}" is not one`)
  }
  return raw
}

function parseBytes(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback
  if (!/^[1-9]\d{0,11}$/.test(raw)) throw new ConfigError(name, `must be a whole number of bytes (1 to 999999999999), got "${raw}"`)
  return Number(raw)
}

/** Defaults for a real site: a person posts a form a few times a minute at most; a page's error reports come in bursts. */
export const DEFAULT_RATE_LIMIT_FORMS = 30
export const DEFAULT_RATE_LIMIT_MONITORING = 300
export const DEFAULT_RATE_LIMIT_WINDOW_MS = 60_000

function parseBudget(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback
  if (raw === 'off') return 0
  if (!/^\d{1,7}$/.test(raw)) {
    throw new ConfigError(name, `must be a whole number of requests per window per client address (0 to 9999999), or "off"; 0 and "off" turn the limit off; got "${raw}"`)
  }
  return Number(raw)
}

function parseWindow(name: string, raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_RATE_LIMIT_WINDOW_MS
  if (!/^[1-9]\d{0,8}$/.test(raw)) throw new ConfigError(name, `must be a whole number of milliseconds (1 to 999999999), got "${raw}"`)
  return Number(raw)
}

function parseRedisUrl(name: string, raw: string): string {
  let url: URL | undefined
  try {
    url = new URL(raw)
  } catch {}
  // The value is not repeated: it may hold a password.
  if (!url || !/^rediss?:$/.test(url.protocol) || url.hostname === '') {
    throw new ConfigError(name, 'must be a Redis URL like redis://redis:6379 or rediss://:password@redis.example.com:6380/0; the value given is not one')
  }
  return raw
}

function parseRateLimit(env: Env): RateLimitConfig {
  return {
    forms: parseBudget('RATE_LIMIT_FORMS', env.RATE_LIMIT_FORMS, DEFAULT_RATE_LIMIT_FORMS),
    monitoring: parseBudget('RATE_LIMIT_MONITORING', env.RATE_LIMIT_MONITORING, DEFAULT_RATE_LIMIT_MONITORING),
    windowMs: parseWindow('RATE_LIMIT_WINDOW_MS', env.RATE_LIMIT_WINDOW_MS),
    redisUrl: env.REDIS_URL ? parseRedisUrl('REDIS_URL', env.REDIS_URL) : undefined,
  }
}

/** The client build beside the server bundle: dist/server/main.js -> dist/client. */
export function defaultClientDir(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../client')
}

export function loadConfig(env: Env = process.env): AppConfig {
  const logLevel = (env.LOG_LEVEL ?? 'info') as LogLevel
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`)
  }
  return {
    // Loopback unless told otherwise: exposing the port is the operator's decision.
    host: env.HOST || '127.0.0.1',
    port: env.PORT === undefined ? 3000 : parsePort('PORT', env.PORT),
    logLevel,
    trustProxy: env.TRUST_PROXY === undefined ? false : parseTrustProxy('TRUST_PROXY', env.TRUST_PROXY),
    allowedOrigins: env.ALLOWED_ORIGINS ? parseOrigins('ALLOWED_ORIGINS', env.ALLOWED_ORIGINS) : [],
    allowedHosts: env.ALLOWED_HOSTS === undefined ? undefined : parseHosts('ALLOWED_HOSTS', env.ALLOWED_HOSTS),
    clientDir: env.CLIENT_DIR || defaultClientDir(),
    monitoring: parseMonitoring(env),
    rateLimit: parseRateLimit(env),
    sessionSecrets: parseSessionSecrets(env),
    shutdownDelayMs: parseMilliseconds('SHUTDOWN_DELAY_MS', env.SHUTDOWN_DELAY_MS, 5_000),
    shutdownGraceMs: parseMilliseconds('SHUTDOWN_GRACE_MS', env.SHUTDOWN_GRACE_MS, 10_000),
    uploadDir: env.UPLOAD_DIR ? parseUploadDir('UPLOAD_DIR', env.UPLOAD_DIR) : tmpdir(),
    uploadMaxBytes: parseBytes('UPLOAD_MAX_BYTES', env.UPLOAD_MAX_BYTES, DEFAULT_UPLOAD_MAX_BYTES),
    logBufferBytes: parseBytes('LOG_BUFFER_BYTES', env.LOG_BUFFER_BYTES, DEFAULT_LOG_BUFFER_BYTES),
    compression: parseSwitch('COMPRESSION', env.COMPRESSION, true),
    openerPolicy: parseOpenerPolicy('CROSS_ORIGIN_OPENER_POLICY', env.CROSS_ORIGIN_OPENER_POLICY),
  }
}

/** A `Cross-Origin-Opener-Policy` value, or `off` (the default): none is sent. */
function parseOpenerPolicy(name: string, value: string | undefined): OpenerPolicy | undefined {
  const normal = value?.trim().toLowerCase()
  if (normal === undefined || normal === '' || normal === 'off') return undefined
  const policy = OPENER_POLICIES.find((known) => known === normal)
  if (!policy) throw new ConfigError(name, `must be one of ${OPENER_POLICIES.join(', ')} or "off", got "${value}"`)
  return policy
}

/** `on` or `off` (also `true`/`false`, `1`/`0`); unset: the default. */
function parseSwitch(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback
  const normal = value.trim().toLowerCase()
  if (['on', 'true', '1'].includes(normal)) return true
  if (['off', 'false', '0'].includes(normal)) return false
  throw new ConfigError(name, `must be "on" or "off", got "${value}"`)
}
