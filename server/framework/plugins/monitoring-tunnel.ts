/**
 * `POST /monitoring?o=&p=[&r=]`: the same-origin relay for the browser's error reports
 * (docs/architecture.md, "Monitoring"), so ad blockers and CSP do not lose them.
 * Not @sentry/core's `handleTunnelRequest`: it trusts client address headers as sent,
 * answers 500 for ingest down and slow alike, and has a fixed 30 s timeout.
 */
import { endStepSpan, startStepSpan } from '../tracing/step-spans.js'
import { KIND_CLIENT } from '../tracing/tracing.js'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ingestUrlFor, type ParsedDsn } from '../../../shared/framework/monitoring.js'
import { TUNNEL_BODY_LIMIT } from '../body-limits.js'
import { errors, type ClientError } from '../error-registry.js'
import { NO_STORE, sendMethodNotAllowed } from '../error-responses.js'
import { declareRequestKind } from '../request-kinds.js'
import { withoutPort } from '../client-address.js'
import { postToIngest, type IngestResponse } from '../monitoring/ingest-client.js'
import { envelopeCoding, tunnelTarget } from '../monitoring/tunnel-request.js'
import type { RouteRateLimit } from '../route-rate-limit.js'

export { TUNNEL_BODY_LIMIT } from '../body-limits.js'
/** Ingest answering later than this is a 504; the browser SDK will retry or drop. */
export const DEFAULT_TUNNEL_TIMEOUT_MS = 10_000

export interface TunnelPluginOptions {
  readonly allowedDsns: readonly ParsedDsn[]
  readonly upstream: string | undefined
  readonly timeoutMs: number
  /** So the tunnel never reports on itself. */
  readonly untraced?: <T>(work: () => Promise<T>) => Promise<T>
  /** None: no limit. */
  readonly rateLimit?: RouteRateLimit | undefined
}

export default async function tunnelPlugin(fastify: FastifyInstance, opts: TunnelPluginOptions) {
  declareRequestKind(fastify, 'monitoring')
  const untraced = opts.untraced ?? ((work) => work())
  const refuse = (request: FastifyRequest, reply: FastifyReply, error: ClientError) => fastify.errorResponses.send(request, reply, error)

  fastify.removeAllContentTypeParsers()
  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: TUNNEL_BODY_LIMIT }, (_request, body, done) => done(null, body))

  // Refused in onRequest, before a body is read (OPTIONS: 204 with Allow).
  const refuseTunnelMethod = async (request: FastifyRequest, reply: FastifyReply) =>
    sendMethodNotAllowed(request, reply, 'POST', errors.TUNNEL_METHOD())
  fastify.route({
    method: ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'],
    url: '/',
    logLevel: 'warn',
    onRequest: refuseTunnelMethod,
    handler: refuseTunnelMethod,
  })

  // The tunnel owns its prefix, as /api does: `/monitoring/<anything>` is no page and no form's target.
  const notTheTunnel = async (request: FastifyRequest, reply: FastifyReply) => refuse(request, reply, errors.TUNNEL_NOT_FOUND())
  fastify.all('/*', { logLevel: 'warn', onRequest: notTheTunnel }, notTheTunnel)

  // The browser SDK honours the 429's Retry-After.
  const config = opts.rateLimit ? { config: { rateLimit: opts.rateLimit } } : {}
  fastify.post('/', { logLevel: 'warn', ...config }, async function forwardEnvelope(request: FastifyRequest, reply: FastifyReply) {
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
    const encoding = envelopeCoding(request.headers['content-encoding'])
    const target = await tunnelTarget(request.query as Record<string, unknown>, body, encoding, opts.allowedDsns)
    if (!target.ok) return refuse(request, reply, target.error)
    const { dsn } = target

    let ingest: IngestResponse
    const url = ingestUrlFor(dsn, opts.upstream)
    const span = startStepSpan(request, 'relay POST', { 'http.request.method': 'POST', 'server.address': new URL(url).host }, KIND_CLIENT)
    try {
      ingest = await untraced(() =>
        postToIngest(
          url,
          body,
          {
            'content-type': 'application/x-sentry-envelope',
            // Without a port a proxy may have written after it.
            'x-sentry-forwarded-for': withoutPort(request.ip),
            ...(encoding ? { 'content-encoding': encoding } : {}),
            ...(request.headers['user-agent'] ? { 'user-agent': request.headers['user-agent'] } : {}),
          },
          opts.timeoutMs,
        ),
      )
      span?.setAttribute('http.response.status_code', ingest.status)
      endStepSpan(span)
    } catch (error) {
      endStepSpan(span, error)
      const timedOut = (error as Error).name === 'IngestTimeout'
      request.log.warn({ err: error, dsnProject: dsn.projectId }, timedOut ? 'ingest timed out' : 'ingest unreachable')
      return refuse(request, reply, timedOut ? errors.INGEST_TIMEOUT() : errors.INGEST_UNREACHABLE())
    }
    if (ingest.status >= 300 && ingest.status < 400) {
      return refuse(request, reply, errors.INGEST_REDIRECT())
    }
    for (const name of ['retry-after', 'x-sentry-rate-limits', 'content-type']) {
      const value = ingest.headers[name]
      if (typeof value === 'string') reply.header(name, value)
    }
    return reply.code(ingest.status).header('cache-control', NO_STORE).send(ingest.body)
  })
}
