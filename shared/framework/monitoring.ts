/**
 * The monitoring tunnel's URL rules (docs/architecture.md, "Monitoring"): the server
 * forwards only a query that `tunnelPathFor` gives for an allowed DSN. A self-hosted
 * DSN has no organisation in its host: its tunnel says `o=0`, and the envelope's DSN
 * tells which allowed host it is.
 */

export const TUNNEL_PATH = '/monitoring'

export interface ParsedDsn {
  /** Also how envelopes name it. */
  readonly dsn: string
  readonly protocol: 'http' | 'https'
  readonly publicKey: string
  /** `o1.ingest.sentry.io`, `127.0.0.1:9000`. */
  readonly host: string
  /** Self-hosted installs may put a path before the project id (`/sentry`). */
  readonly pathPrefix: string
  readonly projectId: string
  readonly orgId: string
  readonly region: string | undefined
}

const DSN = /^(https?):\/\/([A-Za-z0-9]+)(?::[A-Za-z0-9]*)?@(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?((?:\/[A-Za-z0-9._~-]+)*)\/(\d+)\/?$/
const SENTRY_IO_HOST = /^o(\d+)\.ingest(?:\.([a-z]{2}))?\.sentry\.io$/

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

/** `/monitoring?o=123&p=456` (`&r=de` in a region). */
export function tunnelPathFor(dsn: ParsedDsn): string {
  return `${TUNNEL_PATH}?o=${dsn.orgId}&p=${dsn.projectId}${dsn.region ? `&r=${dsn.region}` : ''}`
}

/** `upstream` replaces scheme, host and port (tests, relays). */
export function ingestUrlFor(dsn: ParsedDsn, upstream?: string): string {
  const origin = upstream ? upstream.replace(/\/+$/, '') : `${dsn.protocol}://${dsn.host}`
  return `${origin}${dsn.pathPrefix}/api/${dsn.projectId}/envelope/`
}

/** Part of the document: nothing else leaves the server. */
export interface BrowserMonitoringConfig {
  readonly dsn: string
  readonly tunnel: string
  readonly environment: string
  readonly release: string
  readonly tracesSampleRate: number
}
