/**
 * Builds the Fastify instance: every plugin registered, nothing listening. Tests call
 * `buildApp` with a config and the product (or a fixture application of test-only
 * pages); server/framework/run-server.ts calls it with the environment's config and listens.
 */
import { randomUUID } from 'node:crypto'
import path from 'node:path'
import type { Duplex } from 'node:stream'
import type { DestinationStream } from 'pino'
import Fastify, { LogController, type FastifyInstance, type FastifyPluginAsync, type FastifyReply, type FastifyRequest } from 'fastify'
import type { AppConfig } from './config.js'
import type { BuildManifest } from '../../shared/framework/build-manifest.js'
import { readManifest } from './manifest.js'
import { readInlineStyle } from './render/inline-style.js'
import { hostPolicy } from './allowed-hosts.js'
import { isHttps } from './request-scheme.js'
import { clientErrorRefusal, createRefusals, REQUEST_ID_HEADER, refusalOf, type Refusal, type Refusals } from './http-errors.js'
import { ErrorCode } from '../../shared/framework/errors.js'
import { originForm, splitTarget, targetAuthority } from '../../shared/framework/location.js'
import { noopReporter, type ErrorReporter } from './monitoring/error-reporter.js'
import type { Application } from './application.js'
import { checkLayoutRules } from '../../shared/framework/layout-rules.js'
import { appView, type AppView } from './render/app-view.js'
import { createPageResponder } from './render/page-responder.js'
import fastifyCookie from '@fastify/cookie'
import fastifyCompress from '@fastify/compress'
import { acceptedEncodingHeader, COMPRESSION_THRESHOLD_BYTES, DYNAMIC_BROTLI_PARAMS, DYNAMIC_GZIP_LEVEL } from './compression.js'
import fastifySecureSession from '@fastify/secure-session'
import { SESSION_COOKIE, SESSION_MAX_AGE_S, sessionKeys, UNSET_SECRET_WARNING, type SessionCodec } from './session.js'
import actionsPlugin from './plugins/actions.js'
import apiPlugin from './plugins/api.js'
import errorsPlugin from './plugins/errors.js'
import pagesPlugin from './plugins/pages.js'
import tunnelPlugin, { DEFAULT_TUNNEL_TIMEOUT_MS } from './plugins/monitoring-tunnel.js'
import securityPlugin from './plugins/security.js'
import { scriptlessSecurityHeaders } from './security-headers.js'
import rateLimitPlugin, { routeRateLimit } from './plugins/rate-limit.js'
import { TUNNEL_PATH, tunnelPathFor } from '../../shared/framework/monitoring.js'
import staticPlugin from './plugins/static.js'
import headPlugin from './plugins/head.js'
import { ASSETS_PREFIX } from '../../shared/framework/constants.js'

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Shutdown state: `draining` once a stop signal came (readiness says 503),
     * `closing` once the instance stopped accepting connections.
     */
    lifecycle: { draining: boolean; closing: boolean }
    /** Answers a refusal in the form of the request's surface (server/framework/http-errors.ts). */
    refusals: Refusals
    /** Seals and opens session cookies (server/framework/session.ts). */
    sessionCodec: SessionCodec
  }
}
/** What an incoming request id may look like: no spaces, nothing to break a log line. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** Readiness and liveness probes: answered whatever Host they name (a Kubernetes probe names the pod's address). */
const PROBE_PATHS: ReadonlySet<string> = new Set(['/api/health', '/api/ready'])

/** Longer than any sane render: a render still running then is stuck. */
const DEFAULT_RENDER_TIMEOUT_MS = 10_000

export interface BuildAppOptions {
  /** The product: its pages, layouts and /api routes (server/application.ts, or a test's fixture). */
  readonly application: Application
  /** How long a page render may run before it is aborted; 10 s unless a test shortens it. */
  readonly renderTimeoutMs?: number
  /** How long the monitoring tunnel waits for Sentry's ingest; 10 s unless a test shortens it. */
  readonly tunnelTimeoutMs?: number
  /** The least time between two warnings that Redis fails (rate limits); a minute unless a test shortens it. */
  readonly rateLimitWarnIntervalMs?: number
  /** Where 5xx failures are reported besides the log; nothing unless SENTRY_DSN is set. */
  readonly errorReporter?: ErrorReporter
  /** Where log lines go: main.ts's bounded stdout, a test's capture; pino's stdout otherwise. */
  readonly logStream?: DestinationStream
  /** `npm run dev` only (server/framework/development/): Vite instead of the client build. */
  readonly development?: DevelopmentMode
}

/** What development mode changes in the app; production passes none. */
export interface DevelopmentMode {
  /** Registered first, at the root context: @fastify/vite's middleware and module runner. */
  readonly plugin: FastifyPluginAsync
  /** Stands in for the client build's manifest: Vite's source URLs, its client and React Refresh. */
  readonly manifest: BuildManifest
  /** The pages and renderer as Vite last loaded them. */
  readonly view: () => AppView
  /** Adds development's request log (one line per request the app answered) in place of Fastify's. */
  readonly logRequests: (app: FastifyInstance) => void
}

export function buildApp(config: AppConfig, options: BuildAppOptions): FastifyInstance {
  const { development } = options
  const manifest = development?.manifest ?? readManifest(config.clientDir)
  const refusals = createRefusals({
    buildId: manifest.buildId,
    stylesheets: manifest.css,
    securityHeaders: scriptlessSecurityHeaders(config.openerPolicy),
  })
  // Development has no built stylesheet: Vite injects the styles as modules load.
  const inlineStyle = development ? undefined : readInlineStyle(config.clientDir, manifest)
  const hosts = hostPolicy(config.host, config.allowedHosts)
  const app = Fastify({
    logger: { level: config.logLevel, ...(options.logStream ? { stream: options.logStream } : {}) },
    // Fastify takes a hop count too, though its types leave numbers out.
    trustProxy: config.trustProxy as boolean | string[],
    // The caller's id when it sent a sane one (a proxy's, a client's retry), else a UUID:
    // unique across instances, so an id from any log line finds one request.
    requestIdHeader: false,
    genReqId: (request) => {
      const incoming = request.headers[REQUEST_ID_HEADER]
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID()
    },
    // Longer than the idle timeout of common balancers (60 s), so they close first and
    // never send a request on a connection we are closing.
    keepAliveTimeout: 72_000,
    // A client gets this long to send a whole request, then the connection is cut.
    requestTimeout: 120_000,
    // A request that reaches us after close() began (on a connection opened just before)
    // is served, with `Connection: close`, not refused with 503: a proxy may not retry
    // a refused form post elsewhere.
    return503OnClosing: false,
    // HEAD is answered by the GET route itself (server/framework/plugins/head.ts), not by the
    // HEAD route Fastify would add: that one drops the body before the onSend hooks
    // added for the route afterwards (compression's), so a compressed page's HEAD said
    // neither Content-Encoding nor Vary and gave the uncompressed length, and a 304
    // got `Content-Length: 0`.
    exposeHeadRoutes: false,
    // Development logs one line per request of its own (server/framework/development/request-log.ts).
    ...(development ? { logController: new LogController({ disableRequestLogging: true }) } : {}),
    // Node would answer an HTTP/1.1 request without Host with a bare 400 of its own;
    // admitRequest below refuses it the app's way.
    http: { requireHostHeader: false },
    // What Fastify refuses before routing (a malformed URL) and what Node's parser
    // refuses before Fastify sees a request (431, a broken request line) are answered
    // like every other refusal: the surface's own form, security headers, a request id.
    frameworkErrors: function refuseBeforeRouting(error, request, reply) {
      request.log.info({ code: error.code }, 'request refused before routing')
      return refusals.send(request, reply, refusalOf(error), { hooksRan: false })
    },
    clientErrorHandler: function refuseUnparsedRequest(error, socket) {
      const refusal = clientErrorRefusal(error)
      if (!refusal || socket.destroyed) return void socket.destroy()
      // Node's parser hands over the bytes it read (its types say otherwise).
      const raw: unknown = error.rawPacket
      const reqId = refusals.writeToSocket(socket, Buffer.isBuffer(raw) ? raw : undefined, refusal)
      app.log.info({ reqId, code: error.code, status: refusal.status }, 'request refused by the HTTP parser')
    },
  })
  // Above the keep-alive timeout (Node's advice against the idle-close race), below requestTimeout.
  app.server.headersTimeout = 75_000
  // CONNECT is for proxies, and this server is not one. Node hands it to 'connect'
  // listeners and, with none, drops the connection without a word; it is a 400 in the
  // pages' form, as nginx answers it, and the connection ends.
  app.server.on('connect', (_request, socket: Duplex) => {
    const reqId = refusals.writeToSocket(socket, undefined, {
      status: 400,
      code: ErrorCode.BAD_REQUEST,
      message: 'This server is not a proxy: it does not take CONNECT.',
    })
    app.log.info({ reqId, method: 'CONNECT', status: 400 }, 'request refused: CONNECT')
  })
  // A request whose Expect Node does not know reaches the app (refused in admitRequest) instead of Node's bare 417.
  app.server.on('checkExpectation', (req, res) => app.server.emit('request', req, res))
  // Expect: 100-continue is met when the app starts reading the body, not on arrival as
  // Node would: a request refused before that (a host this server does not answer, a
  // cross-origin form post, a spent rate limit, a Content-Length over the limit, a
  // method or page that takes no body) gets its final answer alone, and the client
  // never sends the body. Node closes the connection after such an answer.
  app.server.on('checkContinue', (req, res) => {
    // Readable calls _read whenever a reader wants data, in flowing mode (on('data'),
    // pipe) and paused mode (read(), for await) alike: the first call says the body is
    // wanted. Node's own drain of an unread body comes after the answer: nothing then.
    const read = req._read
    let asked = false
    req._read = function readAfterContinue(size) {
      if (!asked) {
        asked = true
        if (!res.headersSent) res.writeContinue()
      }
      return read.call(this, size)
    }
    app.server.emit('request', req, res)
  })
  app.decorate('lifecycle', { draining: false, closing: false })
  app.decorate('refusals', refusals)
  if (hosts.warning) app.log.warn(hosts.warning)
  // First, so that even a request refused by the hook below gets its line.
  development?.logRequests(app)
  // One hook on every request, for what every answer carries and what every request
  // must pass before anything else looks at it: the request id; once the instance has
  // stopped accepting, `Connection: close`, so the connections a proxy still holds end
  // after their request (server/framework/run-server.ts); one Host, and one this server answers.
  // Refusals from here go out before the security plugin's hook has run: they carry its fixed headers.
  const refuseEarly = (request: FastifyRequest, reply: FastifyReply, refusal: Refusal) =>
    refusals.send(request, reply, refusal, { hooksRan: false })
  app.addHook('onRequest', async function admitRequest(request, reply) {
    reply.header(REQUEST_ID_HEADER, request.id)
    if (app.lifecycle.closing) reply.header('connection', 'close')
    if (hasDuplicateHost(request.raw.rawHeaders)) {
      return refuseEarly(request, reply, { status: 400, code: ErrorCode.BAD_HOST, message: 'The request has more than one Host header.' })
    }
    const sentHost = request.raw.headers.host
    if (sentHost === undefined && request.raw.httpVersion !== '1.0') {
      return refuseEarly(request, reply, { status: 400, code: ErrorCode.BAD_HOST, message: 'The request has no Host header.' })
    }
    // What the request names: a trusted proxy's X-Forwarded-Host, else Host ('' for
    // none, which only HTTP/1.0 may send, and which names nothing to refuse).
    const named = request.host
    const verdict = named === '' && sentHost === undefined ? 'allowed' : hosts.check(named, isHttps(request))
    if (verdict === 'malformed') {
      return refuseEarly(request, reply, { status: 400, code: ErrorCode.BAD_HOST, message: 'The Host header is not a host name.' })
    }
    // An absolute-form target (`GET http://host/x`) names a host of its own, which HTTP
    // says wins over Host (RFC 9112, 3.2.2). From here on it is the request's Host, for
    // the check below and for every later reader (the same-origin check of forms), and
    // the target is in origin form, as everything after reads it (@fastify/static
    // finds no file under an absolute target). A trusted proxy's X-Forwarded-Host
    // still names the host, and is checked.
    const target = request.raw.url ?? '/'
    const authority = targetAuthority(target)
    if (authority !== undefined) {
      if (hosts.check(authority) === 'malformed') {
        return refuseEarly(request, reply, { status: 400, code: ErrorCode.BAD_HOST, message: 'The host in the request target is not a host name.' })
      }
      request.raw.headers.host = authority
      request.raw.url = originForm(target)
    }
    const finalVerdict = authority === undefined ? verdict : hosts.check(request.host, isHttps(request))
    if (finalVerdict === 'refused' && !PROBE_PATHS.has(splitTarget(request.url).pathname)) {
      request.log.warn({ host: request.host }, 'request for a host this server does not answer refused')
      return refuseEarly(request, reply, {
        status: 421,
        code: ErrorCode.MISDIRECTED,
        message: 'This server does not answer for the host name in the request (see ALLOWED_HOSTS).',
      })
    }
    // HTTP/1.1 defines one expectation, 100-continue (met when the body is read, above); any other is
    // refused here, with what every answer carries, rather than by Node's bare 417
    // (the server's 'checkExpectation' listener hands such a request over).
    const expect = request.headers.expect
    if (expect !== undefined && request.raw.httpVersion === '1.1' && !CONTINUE_EXPECTATION.test(expect)) {
      return refuseEarly(request, reply, {
        status: 417,
        code: ErrorCode.EXPECTATION_FAILED,
        message: 'This server meets no expectation but Expect: 100-continue.',
      })
    }
  })
  // An answer that goes out before the request's body has all arrived (a refusal: a
  // cross-site post, a wrong method or type, a rate limit) closes the connection after
  // it: kept open, Node would take in the rest of the body, however large, to reuse it.
  // Fastify closes it after a body parser's error for the same reason.
  app.addHook('onSend', function closeUnreadBody(request, reply, payload, done) {
    if (!request.raw.complete) reply.header('connection', 'close')
    done(null, payload)
  })
  const errorReporter = options.errorReporter ?? noopReporter
  app.decorate('errorReporter', errorReporter)

  if (development) app.register(development.plugin)
  app.register(errorsPlugin)
  // Request cookies for loaders and actions (server/framework/response-control.ts), and the writer of Set-Cookie.
  app.register(fastifyCookie)
  if (config.sessionSecrets.length === 0) app.log.warn(UNSET_SECRET_WARNING)
  // @fastify/secure-session's sealing, without its hooks (which would open and seal a
  // session on every request, assets and cached pages included): registered in a
  // context of its own that has no routes, its functions are borrowed, and a session
  // is opened only when a loader or action uses it (server/framework/session.ts).
  const sessionCodec: SessionCodec = {
    decode: () => null,
    create: () => {
      throw new Error('sessions are not ready')
    },
    encode: () => '',
  }
  app.decorate('sessionCodec', sessionCodec)
  app.register(async function sealSessions(scope) {
    await scope.register(fastifySecureSession, { key: sessionKeys(config.sessionSecrets), cookieName: SESSION_COOKIE, expiry: SESSION_MAX_AGE_S })
    sessionCodec.decode = (cookie, log) => scope.decodeSecureSession(cookie, log)
    sessionCodec.create = () => scope.createSecureSession({})
    sessionCodec.encode = (session) => scope.encodeSecureSession(session as never)
  })
  // Before the routes it counts: form posts and the monitoring tunnel, per client address.
  const { rateLimit } = config
  app.register(rateLimitPlugin, { redisUrl: rateLimit.redisUrl, warnIntervalMs: options.rateLimitWarnIntervalMs })
  app.register(securityPlugin, {
    development: development !== undefined,
    styleSources: inlineStyle ? [inlineStyle.cspSource] : [],
    openerPolicy: config.openerPolicy,
  })
  // HTML, page data and JSON compressed per answer (server/framework/compression.ts); assets come
  // compressed from the build, static pages are compressed once. Never in development.
  const compression = config.compression && !development
  if (compression) {
    // One negotiation for every part that encodes (server/framework/compression.ts).
    app.addHook('onRequest', function settleAcceptEncoding(request, _reply, done) {
      const accepted = acceptedEncodingHeader(request.headers['accept-encoding'])
      if (accepted !== undefined) request.headers['accept-encoding'] = accepted
      done()
    })
    app.register(fastifyCompress, {
      encodings: ['br', 'gzip'],
      threshold: COMPRESSION_THRESHOLD_BYTES,
      brotliOptions: { params: DYNAMIC_BROTLI_PARAMS },
      zlibOptions: { level: DYNAMIC_GZIP_LEVEL },
      // Request bodies are taken as sent: no form or envelope arrives compressed.
      globalDecompression: false,
    })
  }
  // After compression: each route's HEAD drops the body after compression has set the headers.
  app.register(headPlugin)
  app.register(tunnelPlugin, {
    prefix: TUNNEL_PATH,
    allowedDsns: config.monitoring.allowedDsns,
    upstream: config.monitoring.tunnelUpstream,
    timeoutMs: options.tunnelTimeoutMs ?? DEFAULT_TUNNEL_TIMEOUT_MS,
    untraced: errorReporter.untraced,
    rateLimit: routeRateLimit(rateLimit.monitoring, rateLimit.windowMs),
  })
  app.register(apiPlugin, { prefix: '/api', routes: options.application.apiRoutes })
  if (!development) {
    app.register(staticPlugin, { prefix: ASSETS_PREFIX.slice(0, -1), root: path.join(config.clientDir, 'assets'), compression })
  }
  const { dsn } = config.monitoring
  const { definition } = options.application
  // A layout table that breaks a rule stops the start, naming the culprit.
  checkLayoutRules(definition.router)
  const pages = createPageResponder({
    view: development?.view ?? constant(appView(definition)),
    development: development !== undefined,
    compression,
    manifest,
    ...(inlineStyle ? { inlineStyle } : {}),
    renderTimeoutMs: options.renderTimeoutMs ?? DEFAULT_RENDER_TIMEOUT_MS,
    // Exactly what the browser SDK needs, nothing more of the server's configuration.
    ...(dsn
      ? {
          monitoring: {
            dsn: dsn.dsn,
            tunnel: tunnelPathFor(dsn),
            environment: config.monitoring.environment,
            release: config.monitoring.release ?? manifest.buildId,
            tracesSampleRate: config.monitoring.tracesSampleRate,
          },
        }
      : {}),
  })
  app.register(pagesPlugin, { pages })
  app.register(actionsPlugin, {
    pages,
    allowedOrigins: config.allowedOrigins,
    uploads: { dir: config.uploadDir, maxBytes: config.uploadMaxBytes },
    rateLimit: routeRateLimit(rateLimit.forms, rateLimit.windowMs),
  })
  return app
}

function constant<T>(value: T): () => T {
  return () => value
}

/** What Node takes for `Expect: 100-continue` (its own test, so the two never disagree). */
const CONTINUE_EXPECTATION = /(?:^|\W)100-continue(?:$|\W)/i

/** True when the request carries Host more than once (Node keeps only the first). */
function hasDuplicateHost(rawHeaders: readonly string[]): boolean {
  let seen = false
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!
    if (name.length === 4 && name.toLowerCase() === 'host') {
      if (seen) return true
      seen = true
    }
  }
  return false
}
