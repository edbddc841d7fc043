/** Builds the Fastify instance, every plugin registered, nothing listening: for the tests and run-server.ts. */
import path from 'node:path'
import type { DestinationStream } from 'pino'
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify'
import fastifyCookie from '@fastify/cookie'
import type { BuildManifest } from '../../shared/framework/build-manifest.js'
import { ASSETS_PREFIX } from '../../shared/framework/constants.js'
import { checkLayoutRules } from '../../shared/framework/layout-rules.js'
import { checkGuards } from './guards.js'
import { registerResponseCollection } from './response-control.js'
import { TUNNEL_PATH, tunnelPathFor } from '../../shared/framework/monitoring.js'
import { checkHost } from './host-check.js'
import { hostPolicy } from './allowed-hosts.js'
import type { Application } from './application.js'
import { registerCompression } from './compression.js'
import type { AppConfig } from './config.js'
import { fastifyOptions } from './fastify-options.js'
import { createErrorResponses, type ErrorResponses } from './error-responses.js'
import { closeAfterUnreadBody, LINGER_BOUNDS, type LingerBounds } from './lingering-close.js'
import { readManifest } from './manifest.js'
import { noopReporter, type ErrorReporter } from './monitoring/error-reporter.js'
import { handleNodeServerEvents } from './node-server.js'
import actionsPlugin from './plugins/actions.js'
import apiPlugin from './plugins/api.js'
import errorsPlugin from './plugins/errors.js'
import headPlugin from './plugins/head.js'
import tunnelPlugin, { DEFAULT_TUNNEL_TIMEOUT_MS } from './plugins/monitoring-tunnel.js'
import pagesPlugin from './plugins/pages.js'
import rateLimitPlugin, { routeRateLimit } from './plugins/rate-limit.js'
import securityPlugin from './plugins/security.js'
import staticPlugin from './plugins/static.js'
import { appView, type AppView } from './render/app-view.js'
import { readInlineStyle, type InlineStyle } from './render/inline-style.js'
import { createPageHandlers, type PageHandlers } from './render/page-handlers.js'
import { scriptlessSecurityHeaders } from './security-headers.js'
import { registerSessions, type Sessions } from './session.js'
import { createMetrics, NO_METRICS, type Metrics } from './metrics/metrics.js'
import { serveMetrics } from './metrics/metrics-listener.js'
import { sendServerTiming } from './metrics/timing.js'
import { redisUp } from './redis-connection.js'
import { registerLoadShedding } from './load-shedding.js'
import { requestTracing } from './tracing/request-tracing.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** `draining` once a stop signal came (readiness says 503), `closing` once no connection is accepted. */
    lifecycle: { draining: boolean; closing: boolean }
    errorResponses: ErrorResponses
    config: AppConfig
    sessions: Sessions
    /** NO_METRICS unless METRICS_PORT is set. */
    metrics: Metrics
  }
}
/** Longer than any sane render: a render still running then is stuck. */
const DEFAULT_RENDER_TIMEOUT_MS = 10_000

export interface BuildAppOptions {
  readonly application: Application
  // The timings below are for tests to shorten.
  readonly renderTimeoutMs?: number
  readonly tunnelTimeoutMs?: number
  readonly rateLimitWarnIntervalMs?: number
  readonly sessionWarnIntervalMs?: number
  readonly sessionClock?: () => number
  readonly lingerBounds?: LingerBounds
  /** How often load shedding measures the event loop. */
  readonly sheddingSampleIntervalMs?: number
  readonly errorReporter?: ErrorReporter
  /** main.ts's bounded stdout, a test's capture; pino's stdout otherwise. */
  readonly logStream?: DestinationStream
  readonly development?: DevelopmentMode
}

export interface DevelopmentMode {
  /** Registered first, at the root context. */
  readonly plugin: FastifyPluginAsync
  readonly manifest: BuildManifest
  readonly view: () => AppView
  readonly logRequests: (app: FastifyInstance) => void
}

export function buildApp(config: AppConfig, options: BuildAppOptions): FastifyInstance {
  const { development } = options
  const manifest = development?.manifest ?? readManifest(config.clientDir)
  const errorResponses = createErrorResponses({
    buildId: manifest.buildId,
    stylesheets: manifest.css,
    securityHeaders: scriptlessSecurityHeaders(config.openerPolicy),
  })
  // Development has no built stylesheet: Vite injects the styles as modules load.
  const inlineStyle = development ? undefined : readInlineStyle(config.clientDir, manifest)
  const hosts = hostPolicy(config.host, config.allowedHosts)
  const tracing = config.tracing ? requestTracing(config.tracing, manifest.buildId, config.trustProxy) : undefined
  const app: FastifyInstance = Fastify(fastifyOptions(config, options, errorResponses, () => app.log, tracing))
  app.decorate('tracing', undefined)
  // Its hook first: everything else a request does runs inside the request's span.
  tracing?.register(app)
  // Node's own answers, replaced by ours: CONNECT, an unknown Expect, 100-continue on reading.
  handleNodeServerEvents(app, errorResponses)
  app.decorate('lifecycle', { draining: false, closing: false })
  app.decorate('errorResponses', errorResponses)
  app.decorate('config', config)
  let pages: PageHandlers | undefined
  if (config.metrics) {
    const metrics = createMetrics({
      draining: () => app.lifecycle.draining,
      overloaded: () => app.overloaded(),
      staticPages: () => pages?.staticPagesKept() ?? { entries: 0, bytes: 0 },
      redisUp,
    })
    app.decorate('metrics', metrics)
    serveMetrics(app, metrics, config.metrics)
  } else {
    app.decorate('metrics', NO_METRICS)
    app.decorate('metricsAddress', () => undefined)
  }
  if (config.serverTiming) sendServerTiming(app)
  if (hosts.warning) app.log.warn(hosts.warning)
  // First, so that even a request refused by the hook below gets its line.
  development?.logRequests(app)
  app.addHook('onRequest', checkHost(hosts, errorResponses))
  // A bounded rest of an unread body is read first, so that the client gets the response rather than a reset.
  app.addHook('onSend', closeAfterUnreadBody(options.lingerBounds ?? LINGER_BOUNDS))
  const errorReporter = options.errorReporter ?? noopReporter
  app.decorate('errorReporter', errorReporter)

  if (development) app.register(development.plugin)
  app.register(errorsPlugin)
  registerCookiesAndSessions(app, config, options)
  // Before the routes it counts.
  const { rateLimit } = config
  app.register(rateLimitPlugin, { redisUrl: rateLimit.redisUrl, warnIntervalMs: options.rateLimitWarnIntervalMs })
  app.register(securityPlugin, {
    development: development !== undefined,
    styleSources: inlineStyle ? [inlineStyle.cspSource] : [],
    openerPolicy: config.openerPolicy,
  })
  // After the security headers, before any route's work: a shed request costs next to nothing.
  registerLoadShedding(app, config.shedding, options.sheddingSampleIntervalMs)
  const compression = config.compression && !development
  if (compression) registerCompression(app)
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
  const { definition } = options.application
  checkLayoutRules(definition.router)
  checkGuards(definition)
  pages = pageHandlers(config, options, { manifest, inlineStyle, compression, metrics: app.metrics })
  app.register(pagesPlugin, { pages })
  app.register(actionsPlugin, {
    pages,
    allowedOrigins: config.allowedOrigins,
    uploads: { dir: config.uploadDir, maxBytes: config.uploadMaxBytes },
    rateLimit: routeRateLimit(rateLimit.forms, rateLimit.windowMs),
  })
  return app
}

function registerCookiesAndSessions(app: FastifyInstance, config: AppConfig, options: BuildAppOptions): void {
  // Before the cookie plugin's own onSend: what an /api handler did to the session goes out with its answer.
  registerResponseCollection(app)
  app.register(fastifyCookie)
  registerSessions(app, {
    config: config.sessions,
    secrets: config.sessionSecrets,
    ...(options.sessionClock ? { clock: options.sessionClock } : {}),
    ...(options.sessionWarnIntervalMs ? { warnIntervalMs: options.sessionWarnIntervalMs } : {}),
  })
}

function pageHandlers(
  config: AppConfig,
  options: BuildAppOptions,
  build: {
    readonly manifest: BuildManifest
    readonly inlineStyle: InlineStyle | undefined
    readonly compression: boolean
    readonly metrics: Metrics
  },
): PageHandlers {
  const { development } = options
  const { manifest, inlineStyle } = build
  const { dsn } = config.monitoring
  return createPageHandlers({
    view: development?.view ?? constant(appView(options.application.definition)),
    metrics: build.metrics,
    development: development !== undefined,
    compression: build.compression,
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
}

function constant<T>(value: T): () => T {
  return () => value
}
