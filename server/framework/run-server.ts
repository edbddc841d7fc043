/**
 * The production process (`runServer`, called by server/main.ts with the product): read
 * the environment, build the app, listen, and stop cleanly.
 *
 * On SIGTERM or SIGINT: /api/ready answers 503 at once while everything else is still
 * served for SHUTDOWN_DELAY_MS (the balancer's health check notices and stops sending
 * new requests), then the server stops accepting and lets in-flight requests finish
 * and open connections end (stopAccepting), for at most SHUTDOWN_GRACE_MS; monitoring
 * is flushed, the log written out; exit 0. A second signal, or a drain that outlasts
 * the grace period, exits at once with 1.
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

/**
 * How long a stopping instance waits for the connections it holds to end by themselves,
 * before it closes the idle ones: longer than a proxy's idle timeout for its upstream
 * connections (nginx's `keepalive_timeout 4s` in docs/deploy.md).
 */
const IDLE_WAIT_MS = 5_000

/**
 * How old a temporary upload file must be for a starting process to take it for one
 * left behind: far past the request timeout (120 s), within which a body arrives.
 */
const STALE_UPLOAD_MS = 60 * 60_000

/** Runs the product until a stop signal, then drains and exits (the whole story above). */
export async function runServer(application: Application): Promise<void> {
  const config = loadConfigOrExit({ clientBuild: true })

  // @sentry/node is loaded only when there is somewhere to report to.
  const errorReporter = config.monitoring.dsn ? (await import('./monitoring/sentry-reporter.js')).sentryReporter : undefined
  const logDestination = boundedStdout(config.logBufferBytes)
  const app = buildApp(config, { application, errorReporter, logStream: logDestination.stream })
  logDestination.reportDropsTo(app.log)

  const inFlight = countInFlight(app)
  const shutDown = shutDownOnce(app, config, inFlight, logDestination)
  process.on('SIGTERM', shutDown)
  process.on('SIGINT', shutDown)
  // Whatever way the process ends (a clean stop, the grace period outlasted, a second
  // signal), the files of uploads still in progress go with it.
  process.on('exit', removeLiveFilesSync)

  await listenOrExit(app, config)

  // A process killed outright (SIGKILL, out of memory) could not remove its own.
  removeStaleFiles(config.uploadDir, STALE_UPLOAD_MS).then(
    (removed) => removed > 0 && app.log.info({ removed, uploadDir: config.uploadDir }, 'removed upload files left by an earlier process'),
    (error: unknown) => app.log.warn({ err: error, uploadDir: config.uploadDir }, 'could not look for upload files left by an earlier process'),
  )
}

/** Counts requests received and not yet answered (or abandoned). */
function countInFlight(app: FastifyInstance): () => number {
  let inFlight = 0
  app.server.on('request', (_request, response) => {
    inFlight++
    response.once('close', () => inFlight--)
  })
  return () => inFlight
}

/**
 * Stops accepting connections, then waits until the open ones are done, without
 * closing one under a request. Node's own `close()` drops every connection that has no
 * request in progress, at once: a proxy that has just sent a request on one sees a
 * reset, and may not retry it elsewhere if it is a form post. So the listener closes
 * alone (net.Server's close, without http's idle sweep); every answer from now on
 * closes its connection (app.ts); idle connections end when the proxy drops them
 * (its idle timeout) or after IDLE_WAIT_MS. New connections are refused, which a proxy
 * retries on another instance, form posts included.
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
  // Node's idea of an idle connection can miss one (seen: a keep-alive connection whose
  // last answer the client has not read). Once no request is in flight, whatever is
  // still open is idle by definition and closed too; a request still running keeps
  // its connection until it is answered (with `Connection: close`).
  while (!isClosed) {
    await Promise.race([closed, sleep(250)])
    if (!isClosed && inFlight() === 0) app.server.closeAllConnections()
  }
}

/** The stop signals' handler: the first drains and exits 0, a second exits at once with 1. */
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
      // The last lines, then the count of those dropped since the last report, written
      // before the exit, which would cut short a write under way (a stalled stdout
      // holds the process here, as it would hold the exit's own synchronous write).
      await log.flush()
      process.exit(0)
    } catch (error) {
      app.log.error({ err: error }, 'shutdown failed')
      process.exit(1)
    }
  }
}
