/**
 * Builds the Fastify instance: every plugin registered, nothing listening. Tests call
 * `buildApp` with a config and, when they need test-only pages, a fixture app
 * definition; server/main.ts calls it with the environment's config and listens.
 */
import { randomUUID } from 'node:crypto'
import path from 'node:path'
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify'
import { apiRoutes } from './api/index.js'
import type { AppConfig } from './config.js'
import { readManifest } from './manifest.js'
import { noopReporter, type ErrorReporter } from './monitoring/error-reporter.js'
import type { AnyAppDefinition } from './page-definition.js'
import { appDefinition } from './pages/index.js'
import actionsPlugin from './plugins/actions.js'
import apiPlugin from './plugins/api.js'
import errorsPlugin from './plugins/errors.js'
import pagesPlugin from './plugins/pages.js'
import tunnelPlugin, { DEFAULT_TUNNEL_TIMEOUT_MS } from './plugins/monitoring-tunnel.js'
import securityPlugin from './plugins/security.js'
import { TUNNEL_PATH, tunnelPathFor } from '../shared/monitoring.js'
import staticPlugin from './plugins/static.js'
import { ASSETS_PREFIX } from '../shared/constants.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Process-wide state the readiness probe reports. */
    lifecycle: { draining: boolean }
  }
}

/** Longer than any sane render: a render still running then is stuck. */
const DEFAULT_RENDER_TIMEOUT_MS = 10_000

export interface BuildAppOptions {
  /** The pages to serve; the production application unless a test gives its own. */
  readonly definition?: AnyAppDefinition
  /** The /api route modules; the production ones unless a test gives its own. */
  readonly apiRoutes?: readonly FastifyPluginAsync[]
  /** How long a page render may run before it is aborted; 10 s unless a test shortens it. */
  readonly renderTimeoutMs?: number
  /** How long the monitoring tunnel waits for Sentry's ingest; 10 s unless a test shortens it. */
  readonly tunnelTimeoutMs?: number
  /** Where 5xx failures are reported besides the log; nothing unless SENTRY_DSN is set. */
  readonly errorReporter?: ErrorReporter
  /** Where log lines go (tests capture them); stdout otherwise. */
  readonly logStream?: NodeJS.WritableStream
}

export function buildApp(config: AppConfig, options: BuildAppOptions = {}): FastifyInstance {
  const manifest = readManifest(config.clientDir)
  const app = Fastify({
    logger: { level: config.logLevel, ...(options.logStream ? { stream: options.logStream } : {}) },
    // Fastify takes a hop count too, though its types leave numbers out.
    trustProxy: config.trustProxy as boolean | string[],
    // Unique across instances, so a request id from any log line finds one request.
    genReqId: () => randomUUID(),
  })
  app.decorate('lifecycle', { draining: false })
  const errorReporter = options.errorReporter ?? noopReporter
  app.decorate('errorReporter', errorReporter)

  app.register(errorsPlugin)
  app.register(securityPlugin)
  app.register(tunnelPlugin, {
    prefix: TUNNEL_PATH,
    allowedDsns: config.monitoring.allowedDsns,
    upstream: config.monitoring.tunnelUpstream,
    timeoutMs: options.tunnelTimeoutMs ?? DEFAULT_TUNNEL_TIMEOUT_MS,
    untraced: errorReporter.untraced,
  })
  app.register(apiPlugin, { prefix: '/api', routes: options.apiRoutes ?? apiRoutes })
  app.register(staticPlugin, { prefix: ASSETS_PREFIX.slice(0, -1), root: path.join(config.clientDir, 'assets') })
  const { dsn } = config.monitoring
  const pages = {
    definition: options.definition ?? appDefinition,
    manifest,
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
  }
  app.register(pagesPlugin, pages)
  app.register(actionsPlugin, { ...pages, allowedOrigins: config.allowedOrigins })
  return app
}
