/** One parser per kind of value; unset values never reach them, the declaration's default does. */
import { accessSync, constants, statSync } from 'node:fs'
import path from 'node:path'
import proxyAddr from '@fastify/proxy-addr'
import { parseHostPattern, type HostPattern } from '../allowed-hosts.js'
import { parseDsn, type ParsedDsn } from '../../../shared/framework/monitoring.js'
import {
  ConfigError,
  LOG_LEVELS,
  OPENER_POLICIES,
  SESSION_STORES,
  type LogLevel,
  type OpenerPolicy,
  type SessionStoreKind,
  type TrustProxy,
} from './types.js'

export function parseText(raw: string): string {
  return raw
}

export function parseLogLevel(raw: string, name: string): LogLevel {
  const level = LOG_LEVELS.find((known) => known === raw)
  if (!level) throw new ConfigError(name, `must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`)
  return level
}

export function parseMilliseconds(raw: string, name: string): number {
  if (!/^\d{1,7}$/.test(raw)) throw new ConfigError(name, `must be a whole number of milliseconds (0 to 9999999), got "${raw}"`)
  return Number(raw)
}

export function parsePort(raw: string, name: string): number {
  const port = Number(raw)
  if (!/^\d+$/.test(raw) || port > 65535) {
    // 0 asks the system for a free port (the log line says which).
    throw new ConfigError(name, `must be a port number from 0 to 65535, got "${raw}"`)
  }
  return port
}

export function parseTrustProxy(raw: string, name: string): TrustProxy {
  if (raw === 'false' || raw === '') return false
  if (raw === 'true') return true
  if (/^\d+$/.test(raw)) return Number(raw)
  const entries = raw.split(',').map((entry) => entry.trim())
  // The library Fastify hands the list to decides, so a value that passes here cannot fail inside Fastify.
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

function listOf(raw: string): string[] {
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
}

export function parseOrigins(raw: string, name: string): string[] {
  return listOf(raw).map((entry) => {
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

export function parseHosts(raw: string, name: string): HostPattern[] {
  const entries = listOf(raw)
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

export function parseSecret(raw: string, name: string): string {
  if (raw.length < MIN_SECRET_LENGTH) {
    throw new ConfigError(
      name,
      `must be at least ${MIN_SECRET_LENGTH} characters (a random string, such as the output of \`openssl rand -base64 32\`); it has ${raw.length}`,
    )
  }
  return raw
}

export function parseDsnVariable(raw: string, name: string): ParsedDsn {
  const dsn = parseDsn(raw)
  if (!dsn) throw new ConfigError(name, `must be a Sentry DSN like https://<key>@o1.ingest.sentry.io/2; "${raw}" is not one`)
  return dsn
}

export function parseDsnList(raw: string, name: string): ParsedDsn[] {
  return listOf(raw).map((entry) => parseDsnVariable(entry, name))
}

export function parseSampleRate(raw: string, name: string): number {
  const rate = Number(raw)
  if (!/^\d*\.?\d+$/.test(raw) || rate > 1) throw new ConfigError(name, `must be a number from 0 to 1, got "${raw}"`)
  return rate
}

export function parseUpstreamOrigin(raw: string, name: string): string {
  let url: URL | undefined
  try {
    url = new URL(raw)
  } catch {}
  if (!url || !/^https?:$/.test(url.protocol) || url.pathname.replace(/\/+$/, '') !== '' || url.search) {
    throw new ConfigError(name, `must be an origin like http://127.0.0.1:9000, got "${raw}"`)
  }
  return url.origin
}

export function parseUploadDir(raw: string, name: string): string {
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

export function parseBytes(raw: string, name: string): number {
  if (!/^[1-9]\d{0,11}$/.test(raw)) throw new ConfigError(name, `must be a whole number of bytes (1 to 999999999999), got "${raw}"`)
  return Number(raw)
}

export function parseBudget(raw: string, name: string): number {
  if (raw === 'off') return 0
  if (!/^\d{1,7}$/.test(raw)) {
    throw new ConfigError(
      name,
      `must be a whole number of requests per window per client address (0 to 9999999), or "off"; 0 and "off" turn the limit off; got "${raw}"`,
    )
  }
  return Number(raw)
}

export function parseWindow(raw: string, name: string): number {
  if (!/^[1-9]\d{0,8}$/.test(raw)) throw new ConfigError(name, `must be a whole number of milliseconds (1 to 999999999), got "${raw}"`)
  return Number(raw)
}

export function parseRedisUrl(raw: string, name: string): string {
  let url: URL | undefined
  try {
    url = new URL(raw)
  } catch {}
  // The value is not repeated: it may hold a password.
  if (!url || !/^rediss?:$/.test(url.protocol) || url.hostname === '') {
    throw new ConfigError(
      name,
      'must be a Redis URL like redis://redis:6379 or rediss://:password@redis.example.com:6380/0; the value given is not one',
    )
  }
  return raw
}

const DURATION_UNITS_S: Readonly<Record<string, number>> = { s: 1, m: 60, h: 60 * 60, d: 24 * 60 * 60 }
/** Browsers keep no cookie longer than 400 days, whatever it asks. */
const MAX_DURATION_S = 400 * 24 * 60 * 60

export function parseDuration(raw: string, name: string): number {
  const match = /^(\d{1,9})([smhd]?)$/.exec(raw.trim())
  const seconds = match ? Number(match[1]) * DURATION_UNITS_S[match[2] || 's']! : NaN
  if (!(seconds >= 1 && seconds <= MAX_DURATION_S)) {
    throw new ConfigError(
      name,
      `must be a duration from 1 second to 400 days: a number of seconds, or a number with a unit (90s, 30m, 12h, 14d); got "${raw}"`,
    )
  }
  return seconds
}

export function parseSessionStore(raw: string, name: string): SessionStoreKind {
  const store = SESSION_STORES.find((known) => known === raw.trim().toLowerCase())
  if (!store) throw new ConfigError(name, `must be one of ${SESSION_STORES.join(', ')}, got "${raw}"`)
  return store
}

export function parseOpenerPolicy(raw: string, name: string): OpenerPolicy | undefined {
  const normal = raw.trim().toLowerCase()
  if (normal === '' || normal === 'off') return undefined
  const policy = OPENER_POLICIES.find((known) => known === normal)
  if (!policy) throw new ConfigError(name, `must be one of ${OPENER_POLICIES.join(', ')} or "off", got "${raw}"`)
  return policy
}

export function parseSwitch(raw: string, name: string): boolean {
  const normal = raw.trim().toLowerCase()
  if (['on', 'true', '1'].includes(normal)) return true
  if (['off', 'false', '0'].includes(normal)) return false
  throw new ConfigError(name, `must be "on" or "off", got "${raw}"`)
}

/** A share of time from 0 to 1 (`0.9`); 0 turns the check off. */
export function parseRatio(raw: string, name: string): number {
  const value = Number(raw)
  if (!/^(0|1|0?\.\d+|1\.0*)$/.test(raw.trim()) || value < 0 || value > 1) {
    throw new ConfigError(name, `must be a number from 0 to 1 (0: off), got "${raw}"`)
  }
  return value
}
