/**
 * The production process. On SIGTERM, readiness is 503 for SHUTDOWN_DELAY_MS while everything is still
 * served, so the balancer stops sending; then in-flight requests get SHUTDOWN_GRACE_MS to finish.
 */
import net from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance } from 'fastify'
import { buildApp } from './app.js'
import type { Application } from './application.js'
import { boundedStdout, type LogDestination } from './log-destination.js'
import type { AppConfig } from './config.js'
import { listenOrExit, loadConfigOrExit } from './process.js'
import { removeLiveFilesSync, removeStaleFiles } from './uploads/store-upload.js'

/** Longer than a proxy's idle timeout for its upstream connections (`keepalive_timeout 4s` in docs/deploy.md). */
const IDLE_WAIT_MS = 5_000

/** Far past the request timeout (120 s), within which a body arrives. */
const STALE_UPLOAD_MS = 60 * 60_000

export async function runServer(application: Application): Promise<void> {
  const config = loadConfigOrExit({ clientBuild: true, variables: application.configVariables })

  // @sentry/node is loaded only when there is somewhere to report to.
  const errorReporter = config.monitoring.dsn ? (await import('./monitoring/sentry-reporter.js')).sentryReporter : undefined
  const logDestination = boundedStdout(config.logBufferBytes)
  const app = buildApp(config, { application, errorReporter, logStream: logDestination.stream })
  logDestination.reportDropsTo(app.log)

  const inFlight = countInFlight(app)
  const shutDown = shutDownOnce(app, config, inFlight, logDestination)
  process.on('SIGTERM', shutDown)
  process.on('SIGINT', shutDown)
  // Whatever way the process ends, the files of uploads still in progress go with it.
  process.on('exit', removeLiveFilesSync)

  await listenOrExit(app, config)

  // A process killed outright (SIGKILL, out of memory) could not remove its own.
  removeStaleFiles(config.uploadDir, STALE_UPLOAD_MS).then(
    (removed) => removed > 0 && app.log.info({ removed, uploadDir: config.uploadDir }, 'removed upload files left by an earlier process'),
    (error: unknown) => app.log.warn({ err: error, uploadDir: config.uploadDir }, 'could not look for upload files left by an earlier process'),
  )
}

function countInFlight(app: FastifyInstance): () => number {
  let inFlight = 0
  app.server.on('request', (_request, response) => {
    inFlight++
    response.once('close', () => inFlight--)
  })
  return () => inFlight
}

/**
 * Node's own `close()` drops every idle connection at once: a proxy that has just sent a form post on
 * one sees a reset, and may not retry it. So the listener closes alone, every answer from now on
 * closes its connection, and idle ones are left to the proxy for IDLE_WAIT_MS.
 */
async function stopAccepting(app: FastifyInstance, config: AppConfig, inFlight: () => number): Promise<void> {
  let isClosed = false
  const closed = new Promise<void>((resolve) => app.server.once('close', () => resolve()))
  void closed.then(() => (isClosed = true))
  app.lifecycle.closing = true
  net.Server.prototype.close.call(app.server)
  const idleWait = Math.min(IDLE_WAIT_MS, config.shutdownGraceMs / 2)
  await Promise.race([closed, sleep(idleWait)])
  if (isClosed) return
  app.server.closeIdleConnections()
  // Node's idea of an idle connection can miss one (seen: a last answer the client has not read).
  // Once no request is in flight, whatever is still open is idle by definition.
  while (!isClosed) {
    await Promise.race([closed, sleep(250)])
    if (!isClosed && inFlight() === 0) app.server.closeAllConnections()
  }
}

function shutDownOnce(
  app: FastifyInstance,
  config: AppConfig,
  inFlight: () => number,
  log: LogDestination,
): (signal: NodeJS.Signals) => Promise<void> {
  let stopping = false
  return async function shutDown(signal) {
    if (stopping) {
      app.log.warn({ signal }, 'second signal: exiting now')
      process.exit(1)
    }
    stopping = true
    app.lifecycle.draining = true
    app.log.info({ signal, delayMs: config.shutdownDelayMs, graceMs: config.shutdownGraceMs }, 'draining: readiness is 503')
    await sleep(config.shutdownDelayMs)
    const deadline = setTimeout(() => {
      app.log.error({ graceMs: config.shutdownGraceMs }, 'in-flight requests outlasted the grace period: exiting')
      process.exit(1)
    }, config.shutdownGraceMs)
    try {
      await stopAccepting(app, config, inFlight)
      await app.close() // runs the close hooks; the connections are already gone
      await app.errorReporter.flush(Math.min(2_000, config.shutdownGraceMs))
      clearTimeout(deadline)
      app.log.info('stopped')
      // The exit would cut short a write under way.
      await log.flush()
      process.exit(0)
    } catch (error) {
      app.log.error({ err: error }, 'shutdown failed')
      process.exit(1)
    }
  }
}
