/**
 * `POST /monitoring?o=&p=[&r=]`: the same-origin relay for the browser's error
 * reports (DESIGN §7), so ad blockers and CSP do not lose them. It must never become
 * an open relay (Next.js' tunnel once was: GHSA-2rmr-xw8m-22q9), so it forwards only
 * when the query AND the envelope's own header name the same allowed DSN, and only to
 * that DSN's ingest endpoint (or SENTRY_TUNNEL_UPSTREAM), never following redirects.
 *
 * The body is bytes: only the first line (the envelope header, at most 64 KiB) is read
 * as JSON, after gunzipping as far as that line when the body is gzip-encoded; the rest
 * (replays, attachments) is forwarded exactly as received.
 *
 * Not @sentry/core's `handleTunnelRequest`: it takes the client address from request
 * headers as sent (spoofable without a trusted proxy), answers 500 both when ingest is
 * down and when it is slow (we answer 502 and 504), has a fixed 30 s timeout, no
 * upstream override, and requires Content-Length.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { createGunzip } from 'node:zlib'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ingestUrlFor, parseDsn, parseTunnelQuery, queryNamesDsn, type ParsedDsn } from '../../shared/monitoring.js'

/**
 * The largest envelope request relayed. Browser events and transactions weigh well
 * under 200 KB; the app enables neither session replay nor attachments, which are what
 * approach Sentry's own 20 MiB limit. Each request is held in memory while it is
 * checked, so the bound is also what a burst of requests can cost. Raise it (at most
 * 20 MiB) if replay is turned on.
 */
export const TUNNEL_BODY_LIMIT = 1024 * 1024
/** The envelope header line: Sentry's own tunnel reads at most this much of it. */
export const ENVELOPE_HEADER_LIMIT = 64 * 1024
/** Ingest answering later than this is a 504; the browser SDK will retry or drop. */
export const DEFAULT_TUNNEL_TIMEOUT_MS = 10_000

export interface TunnelPluginOptions {
  readonly allowedDsns: readonly ParsedDsn[]
  readonly upstream: string | undefined
  readonly timeoutMs: number
  /** Runs the forward outside any tracing, so the tunnel never reports on itself. */
  readonly untraced?: <T>(work: () => Promise<T>) => Promise<T>
}

type HeaderLine = { ok: true; line: Buffer } | { ok: false; problem: string }

function firstLine(bytes: Buffer): HeaderLine {
  const end = bytes.indexOf(0x0a)
  const line = end === -1 ? bytes : bytes.subarray(0, end)
  if (line.length > ENVELOPE_HEADER_LIMIT) return { ok: false, problem: 'The envelope header line is over 64 KiB.' }
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
    gunzip.on('error', () => finish({ ok: false, problem: 'The body is not valid gzip.' }))
    gunzip.end(body)
  })
}

function sameDsn(a: ParsedDsn, b: ParsedDsn): boolean {
  return (
    a.protocol === b.protocol &&
    a.host === b.host &&
    a.publicKey === b.publicKey &&
    a.projectId === b.projectId &&
    a.pathPrefix === b.pathPrefix
  )
}

interface IngestAnswer {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: Buffer
}

/**
 * Connections to ingest are kept alive and shared; node:http never follows a redirect.
 * (Measured: global fetch, with its per-call timeout signal, forwarded about half as
 * many envelopes per second.)
 */
const agents = { http: new HttpAgent({ keepAlive: true, maxSockets: 64 }), https: new HttpsAgent({ keepAlive: true, maxSockets: 64 }) }

class IngestTimeout extends Error {
  override name = 'TimeoutError'
}

function postToIngest(url: string, body: Buffer, headers: Record<string, string>, timeoutMs: number): Promise<IngestAnswer> {
  const target = new URL(url)
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise((resolve, reject) => {
    const outgoing = send(
      target,
      {
        method: 'POST',
        agent: target.protocol === 'https:' ? agents.https : agents.http,
        headers: { ...headers, 'content-length': String(body.length) },
      },
      (answer) => {
        const chunks: Buffer[] = []
        answer.on('data', (chunk: Buffer) => chunks.push(chunk))
        answer.on('end', () => {
          clearTimeout(timer)
          resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: Buffer.concat(chunks) })
        })
        answer.on('error', reject)
      },
    )
    const timer = setTimeout(() => outgoing.destroy(new IngestTimeout(`ingest did not answer within ${timeoutMs} ms`)), timeoutMs)
    outgoing.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    outgoing.end(body)
  })
}

function refuse(reply: FastifyReply, status: number, message: string) {
  return reply.code(status).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send(message)
}

export default async function tunnelPlugin(fastify: FastifyInstance, opts: TunnelPluginOptions) {
  const untraced = opts.untraced ?? ((work) => work())

  fastify.removeAllContentTypeParsers()
  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: TUNNEL_BODY_LIMIT }, (_request, body, done) =>
    done(null, body),
  )
  fastify.setErrorHandler(function refuseBadTunnelRequest(error: FastifyError, request, reply) {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return refuse(reply, 413, `Envelopes may be at most ${TUNNEL_BODY_LIMIT} bytes.`)
    }
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500
    if (status === 500) request.log.error({ err: error }, 'monitoring tunnel failed')
    return refuse(reply, status, status === 500 ? 'The tunnel failed.' : error.message)
  })

  fastify.route({
    method: ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'],
    url: '/',
    logLevel: 'warn',
    handler: (_request, reply) => refuse(reply.header('allow', 'POST'), 405, 'The monitoring tunnel only takes POST.'),
  })

  fastify.post('/', { logLevel: 'warn' }, async function forwardEnvelope(request: FastifyRequest, reply: FastifyReply) {
    const query = parseTunnelQuery(request.query as Record<string, unknown>)
    if (!query.ok) return refuse(reply, 400, `Tunnel parameter "${query.parameter}" ${query.problem}.`)
    const named = opts.allowedDsns.filter((dsn) => queryNamesDsn(query.query, dsn))
    if (named.length === 0) return refuse(reply, 403, 'The tunnel does not forward to this project.')

    const body = request.body
    if (!Buffer.isBuffer(body) || body.length === 0) return refuse(reply, 400, 'The envelope is empty.')
    const encoding = request.headers['content-encoding']
    if (encoding !== undefined && encoding !== 'gzip') return refuse(reply, 415, 'Envelopes may be gzip-encoded or plain.')
    const head = encoding === 'gzip' ? await firstLineOfGzip(body) : firstLine(body)
    if (!head.ok) return refuse(reply, 400, head.problem)

    let header: unknown
    try {
      header = JSON.parse(head.line.toString('utf8'))
    } catch {
      return refuse(reply, 400, 'The envelope header is not JSON.')
    }
    const claimed = typeof header === 'object' && header !== null ? (header as { dsn?: unknown }).dsn : undefined
    if (typeof claimed !== 'string') return refuse(reply, 400, 'The envelope header names no DSN.')
    const claimedDsn = parseDsn(claimed)
    const dsn = claimedDsn && named.find((candidate) => sameDsn(candidate, claimedDsn))
    if (!dsn) return refuse(reply, 403, "The envelope's DSN is not the allowed DSN the tunnel URL names.")

    let answer: IngestAnswer
    try {
      answer = await untraced(() =>
        postToIngest(
          ingestUrlFor(dsn, opts.upstream),
          body,
          {
            'content-type': 'application/x-sentry-envelope',
            'x-sentry-forwarded-for': request.ip,
            ...(encoding ? { 'content-encoding': encoding } : {}),
            ...(request.headers['user-agent'] ? { 'user-agent': request.headers['user-agent'] } : {}),
          },
          opts.timeoutMs,
        ),
      )
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError'
      request.log.warn({ err: error, dsnProject: dsn.projectId }, timedOut ? 'ingest timed out' : 'ingest unreachable')
      return refuse(reply, timedOut ? 504 : 502, timedOut ? 'Sentry ingest did not answer in time.' : 'Sentry ingest is unreachable.')
    }
    if (answer.status >= 300 && answer.status < 400) {
      return refuse(reply, 502, 'Sentry ingest answered with a redirect, which the tunnel does not follow.')
    }
    for (const name of ['retry-after', 'x-sentry-rate-limits', 'content-type']) {
      const value = answer.headers[name]
      if (typeof value === 'string') reply.header(name, value)
    }
    return reply.code(answer.status).header('cache-control', 'no-store').send(answer.body)
  })
}
