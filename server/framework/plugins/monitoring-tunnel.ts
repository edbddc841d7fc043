/**
 * `POST /monitoring?o=&p=[&r=]`: the same-origin relay for the browser's error reports
 * (docs/architecture.md, "Monitoring"), so ad blockers and CSP do not lose them. What a
 * request must be to be forwarded is server/framework/monitoring/tunnel-request.ts; the client
 * that forwards it is server/framework/monitoring/ingest-client.ts; this plugin reads the body,
 * asks the one, calls the other, and passes ingest's answer back (its status,
 * `Retry-After` and `X-Sentry-Rate-Limits`). Ingest down is a 502, slow a 504.
 *
 * Not @sentry/core's `handleTunnelRequest`: it takes the client address from request
 * headers as sent (spoofable without a trusted proxy), answers 500 both when ingest is
 * down and when it is slow, has a fixed 30 s timeout, no upstream override, and
 * requires Content-Length.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ErrorCode } from '../../../shared/framework/errors.js'
import { ingestUrlFor, TUNNEL_PATH, type ParsedDsn } from '../../../shared/framework/monitoring.js'
import { declareSurface } from '../surfaces.js'
import { NO_STORE, refuseMethod, refusalOf, statusOf } from '../http-errors.js'
import { withoutPort } from '../client-address.js'
import { postToIngest, type IngestAnswer } from '../monitoring/ingest-client.js'
import { envelopeCoding, tunnelTarget } from '../monitoring/tunnel-request.js'
import type { RouteRateLimit } from '../route-rate-limit.js'

/**
 * The largest envelope request relayed. Browser events and transactions weigh well
 * under 200 KB; the app enables neither session replay nor attachments, which are what
 * approach Sentry's own 20 MiB limit. Each request is held in memory while it is
 * checked, so the bound is also what a burst of requests can cost. Raise it (at most
 * 20 MiB) if replay is turned on.
 */
export const TUNNEL_BODY_LIMIT = 1024 * 1024
/** Ingest answering later than this is a 504; the browser SDK will retry or drop. */
export const DEFAULT_TUNNEL_TIMEOUT_MS = 10_000

export interface TunnelPluginOptions {
  readonly allowedDsns: readonly ParsedDsn[]
  readonly upstream: string | undefined
  readonly timeoutMs: number
  /** Runs the forward outside any tracing, so the tunnel never reports on itself. */
  readonly untraced?: <T>(work: () => Promise<T>) => Promise<T>
  /** Envelopes per window per client address (RATE_LIMIT_MONITORING): over it, 429. None: no limit. */
  readonly rateLimit?: RouteRateLimit | undefined
}

export default async function tunnelPlugin(fastify: FastifyInstance, opts: TunnelPluginOptions) {
  declareSurface(fastify, 'monitoring')
  const untraced = opts.untraced ?? ((work) => work())
  const refuse = (request: FastifyRequest, reply: FastifyReply, status: number, message: string) =>
    fastify.refusals.send(request, reply, { status, code: status >= 500 ? ErrorCode.HTTP : ErrorCode.BAD_REQUEST, message })

  fastify.removeAllContentTypeParsers()
  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: TUNNEL_BODY_LIMIT }, (_request, body, done) => done(null, body))
  fastify.setErrorHandler(function refuseBadTunnelRequest(error: FastifyError, request, reply) {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return refuse(request, reply, 413, `Envelopes may be at most ${TUNNEL_BODY_LIMIT} bytes.`)
    }
    if (statusOf(error) < 500) return fastify.refusals.send(request, reply, refusalOf(error))
    request.log.error({ err: error }, 'monitoring tunnel failed')
    return refuse(request, reply, 500, 'The tunnel failed.')
  })

  // Refused in onRequest, before a body is read (OPTIONS: 204 with Allow).
  const refuseTunnelMethod = async (request: FastifyRequest, reply: FastifyReply) =>
    refuseMethod(request, reply, 'POST', 'The monitoring tunnel only takes POST.')
  fastify.route({
    method: ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'],
    url: '/',
    logLevel: 'warn',
    onRequest: refuseTunnelMethod,
    handler: refuseTunnelMethod,
  })

  // The tunnel owns its prefix, as /api does: `/monitoring/<anything>` is no page and
  // no form's target, whatever the method. Refused before a body is read.
  const notTheTunnel = async (request: FastifyRequest, reply: FastifyReply) =>
    fastify.refusals.send(request, reply, {
      status: 404,
      code: ErrorCode.NOT_FOUND,
      message: `The monitoring tunnel answers at ${TUNNEL_PATH} only.`,
    })
  fastify.all('/*', { logLevel: 'warn', onRequest: notTheTunnel }, notTheTunnel)

  // Over budget (server/framework/plugins/rate-limit.ts): 429 with Retry-After, which the browser SDK honours.
  const config = opts.rateLimit ? { config: { rateLimit: opts.rateLimit } } : {}
  fastify.post('/', { logLevel: 'warn', ...config }, async function forwardEnvelope(request: FastifyRequest, reply: FastifyReply) {
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
    const encoding = envelopeCoding(request.headers['content-encoding'])
    const target = await tunnelTarget(request.query as Record<string, unknown>, body, encoding, opts.allowedDsns)
    if (!target.ok) return refuse(request, reply, target.status, target.message)
    const { dsn } = target

    let answer: IngestAnswer
    try {
      answer = await untraced(() =>
        postToIngest(
          ingestUrlFor(dsn, opts.upstream),
          body,
          {
            'content-type': 'application/x-sentry-envelope',
            // The client's address, without a port a proxy may have written after it.
            'x-sentry-forwarded-for': withoutPort(request.ip),
            ...(encoding ? { 'content-encoding': encoding } : {}),
            ...(request.headers['user-agent'] ? { 'user-agent': request.headers['user-agent'] } : {}),
          },
          opts.timeoutMs,
        ),
      )
    } catch (error) {
      const timedOut = (error as Error).name === 'IngestTimeout'
      request.log.warn({ err: error, dsnProject: dsn.projectId }, timedOut ? 'ingest timed out' : 'ingest unreachable')
      return refuse(request, reply, timedOut ? 504 : 502, timedOut ? 'Sentry ingest did not answer in time.' : 'Sentry ingest is unreachable.')
    }
    if (answer.status >= 300 && answer.status < 400) {
      return refuse(request, reply, 502, 'Sentry ingest answered with a redirect, which the tunnel does not follow.')
    }
    for (const name of ['retry-after', 'x-sentry-rate-limits', 'content-type']) {
      const value = answer.headers[name]
      if (typeof value === 'string') reply.header(name, value)
    }
    return reply.code(answer.status).header('cache-control', NO_STORE).send(answer.body)
  })
}
