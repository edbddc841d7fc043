/**
 * The monitoring tunnel's URL rules (DESIGN §7), one module for both sides: the
 * browser builds its `tunnel` option from the DSN with `tunnelPathFor`, and the server
 * accepts a tunnel request only when its query is exactly what `tunnelPathFor` gives
 * for an allowed DSN (and the envelope names that same DSN).
 *
 * `o` is the organisation id from a sentry.io ingest host (`o123.ingest.sentry.io`),
 * `r` its region (`o123.ingest.de.sentry.io` -> `de`), `p` the project id. A
 * self-hosted DSN (`https://key@sentry.example.com/5`) has no organisation in its
 * host: its tunnel says `o=0`, and the envelope's DSN tells which allowed host it is.
 */

export const TUNNEL_PATH = '/monitoring'

export interface ParsedDsn {
  /** The DSN as configured, which is also how envelopes name it. */
  readonly dsn: string
  readonly protocol: 'http' | 'https'
  readonly publicKey: string
  /** Host and port, as in a URL: `o1.ingest.sentry.io`, `127.0.0.1:9000`. */
  readonly host: string
  /** A path before the project id on self-hosted installs (`/sentry`), else ''. */
  readonly pathPrefix: string
  readonly projectId: string
  readonly orgId: string
  readonly region: string | undefined
}

const DSN = /^(https?):\/\/([A-Za-z0-9]+)(?::[A-Za-z0-9]*)?@(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?((?:\/[A-Za-z0-9._~-]+)*)\/(\d+)\/?$/
const SENTRY_IO_HOST = /^o(\d+)\.ingest(?:\.([a-z]{2}))?\.sentry\.io$/

/** Parses a DSN strictly; undefined for anything that is not one. */
export function parseDsn(dsn: string): ParsedDsn | undefined {
  const match = DSN.exec(dsn.trim())
  if (!match) return undefined
  const [, protocol, publicKey, hostname, port, pathPrefix, projectId] = match
  const sentryIo = SENTRY_IO_HOST.exec(hostname!)
  return {
    dsn: dsn.trim(),
    protocol: protocol as 'http' | 'https',
    publicKey: publicKey!,
    host: port ? `${hostname}:${port}` : hostname!,
    pathPrefix: pathPrefix ?? '',
    projectId: projectId!,
    orgId: sentryIo?.[1] ?? '0',
    region: sentryIo?.[2],
  }
}

/** The same-origin tunnel URL of a DSN: `/monitoring?o=123&p=456` (`&r=de` in a region). */
export function tunnelPathFor(dsn: ParsedDsn): string {
  return `${TUNNEL_PATH}?o=${dsn.orgId}&p=${dsn.projectId}${dsn.region ? `&r=${dsn.region}` : ''}`
}

/** Where Sentry takes a DSN's envelopes. `upstream` replaces scheme, host and port (tests, relays). */
export function ingestUrlFor(dsn: ParsedDsn, upstream?: string): string {
  const origin = upstream ? upstream.replace(/\/+$/, '') : `${dsn.protocol}://${dsn.host}`
  return `${origin}${dsn.pathPrefix}/api/${dsn.projectId}/envelope/`
}

export interface TunnelQuery {
  readonly o: string
  readonly p: string
  readonly r: string | undefined
}

/**
 * Checks a tunnel request's query: `o` and `p` digits, `r` two lowercase letters or
 * absent, nothing else. Returns the query, or the name of the first bad parameter and why.
 */
export function parseTunnelQuery(
  query: Readonly<Record<string, unknown>>,
): { ok: true; query: TunnelQuery } | { ok: false; parameter: string; problem: string } {
  for (const name of Object.keys(query)) {
    if (name !== 'o' && name !== 'p' && name !== 'r') return { ok: false, parameter: name, problem: 'is not a tunnel parameter' }
  }
  const { o, p, r } = query
  if (typeof o !== 'string' || !/^\d{1,20}$/.test(o)) return { ok: false, parameter: 'o', problem: 'must be the organisation id (digits)' }
  if (typeof p !== 'string' || !/^\d{1,20}$/.test(p)) return { ok: false, parameter: 'p', problem: 'must be the project id (digits)' }
  if (r !== undefined && (typeof r !== 'string' || !/^[a-z]{2}$/.test(r))) {
    return { ok: false, parameter: 'r', problem: 'must be a region of two lowercase letters' }
  }
  return { ok: true, query: { o, p, r: r as string | undefined } }
}

/** True when a tunnel query names this DSN. */
export function queryNamesDsn(query: TunnelQuery, dsn: ParsedDsn): boolean {
  return query.o === dsn.orgId && query.p === dsn.projectId && query.r === dsn.region
}

/** What the page tells the browser SDK (DESIGN §5: part of the document). Nothing else leaves the server. */
export interface BrowserMonitoringConfig {
  readonly dsn: string
  readonly tunnel: string
  readonly environment: string
  readonly release: string
  readonly tracesSampleRate: number
}
