/**
 * What a monitoring tunnel request must be to be forwarded: its query and its envelope's header name the
 * same allowed DSN, so the tunnel can never be an open relay. Only the envelope header is ever decoded.
 */
import { createGunzip } from 'node:zlib'
import { parseDsn, type ParsedDsn } from '../../../shared/framework/monitoring.js'
import { errors, type ClientError } from '../error-registry.js'

/** Sentry's own tunnel reads at most this much of the header line. */
export const ENVELOPE_HEADER_LIMIT = 64 * 1024

export type TunnelVerdict = { readonly ok: true; readonly dsn: ParsedDsn } | { readonly ok: false; readonly error: ClientError }

interface TunnelQuery {
  readonly o: string
  readonly p: string
  readonly r: string | undefined
}

/** The errors name our parameters, never quoting the client's. */
export function parseTunnelQuery(query: Readonly<Record<string, unknown>>): { ok: true; query: TunnelQuery } | { ok: false; error: ClientError } {
  for (const name of Object.keys(query)) {
    if (name !== 'o' && name !== 'p' && name !== 'r') return { ok: false, error: errors.TUNNEL_PARAMETERS() }
  }
  const { o, p, r } = query
  if (typeof o !== 'string' || !/^\d{1,20}$/.test(o)) return { ok: false, error: errors.TUNNEL_ORG() }
  if (typeof p !== 'string' || !/^\d{1,20}$/.test(p)) return { ok: false, error: errors.TUNNEL_PROJECT() }
  if (r !== undefined && (typeof r !== 'string' || !/^[a-z]{2}$/.test(r))) return { ok: false, error: errors.TUNNEL_REGION() }
  return { ok: true, query: { o, p, r: r as string | undefined } }
}

/** What `tunnelPathFor` writes for it. */
function queryNamesDsn(query: TunnelQuery, dsn: ParsedDsn): boolean {
  return query.o === dsn.orgId && query.p === dsn.projectId && query.r === dsn.region
}

function sameDsn(a: ParsedDsn, b: ParsedDsn): boolean {
  return a.protocol === b.protocol && a.host === b.host && a.publicKey === b.publicKey && a.projectId === b.projectId && a.pathPrefix === b.pathPrefix
}

type HeaderLine = { ok: true; line: Buffer } | { ok: false; error: ClientError }

function firstLine(bytes: Buffer): HeaderLine {
  const end = bytes.indexOf(0x0a)
  const line = end === -1 ? bytes : bytes.subarray(0, end)
  if (line.length > ENVELOPE_HEADER_LIMIT) return { ok: false, error: errors.ENVELOPE_HEADER_TOO_LONG() }
  return { ok: true, line }
}

/** Gunzips only as far as the first line: a small bomb cannot make us inflate it all. */
function firstLineOfGzip(body: Buffer): Promise<HeaderLine> {
  return new Promise((resolve) => {
    const gunzip = createGunzip()
    let out = Buffer.alloc(0)
    const finish = (result: HeaderLine) => {
      resolve(result)
      gunzip.destroy()
    }
    gunzip.on('data', (chunk: Buffer) => {
      out = Buffer.concat([out, chunk])
      if (out.includes(0x0a) || out.length > ENVELOPE_HEADER_LIMIT) finish(firstLine(out))
    })
    gunzip.on('end', () => finish(firstLine(out)))
    gunzip.on('error', () => finish({ ok: false, error: errors.ENVELOPE_NOT_GZIP() }))
    gunzip.end(body)
  })
}

/** Codings are case-insensitive, and `x-gzip` is gzip; anything else is returned as sent, for the tunnel to refuse. */
export function envelopeCoding(header: string | undefined): string | undefined {
  const coding = header?.trim().toLowerCase()
  if (coding === undefined || coding === '' || coding === 'identity') return undefined
  return coding === 'x-gzip' ? 'gzip' : coding
}

async function claimedDsn(body: Buffer, encoding: string | undefined): Promise<{ ok: true; dsn: string } | { ok: false; error: ClientError }> {
  if (body.length === 0) return { ok: false, error: errors.ENVELOPE_EMPTY() }
  if (encoding !== undefined && encoding !== 'gzip') return { ok: false, error: errors.ENVELOPE_CODING() }
  const head = encoding === 'gzip' ? await firstLineOfGzip(body) : firstLine(body)
  if (!head.ok) return head
  let header: unknown
  try {
    header = JSON.parse(head.line.toString('utf8'))
  } catch {
    return { ok: false, error: errors.ENVELOPE_HEADER_NOT_JSON() }
  }
  const claimed = typeof header === 'object' && header !== null ? (header as { dsn?: unknown }).dsn : undefined
  if (typeof claimed !== 'string') return { ok: false, error: errors.ENVELOPE_NO_DSN() }
  return { ok: true, dsn: claimed }
}

export async function tunnelTarget(
  query: Readonly<Record<string, unknown>>,
  body: Buffer,
  encoding: string | undefined,
  allowedDsns: readonly ParsedDsn[],
): Promise<TunnelVerdict> {
  const parsed = parseTunnelQuery(query)
  if (!parsed.ok) return parsed
  const named = allowedDsns.filter((dsn) => queryNamesDsn(parsed.query, dsn))
  if (named.length === 0) return { ok: false, error: errors.TUNNEL_NOT_ALLOWED() }
  const claimed = await claimedDsn(body, encoding)
  if (!claimed.ok) return claimed
  const claimedParsed = parseDsn(claimed.dsn)
  const dsn = claimedParsed && named.find((candidate) => sameDsn(candidate, claimedParsed))
  if (!dsn) return { ok: false, error: errors.ENVELOPE_OTHER_DSN() }
  return { ok: true, dsn }
}
