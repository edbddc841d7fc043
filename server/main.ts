/**
 * The process: read the environment, build the app, listen, and stop cleanly.
 *
 * On SIGTERM or SIGINT: /api/ready answers 503 at once while everything else is still
 * served for SHUTDOWN_DELAY_MS (the balancer's health check notices and stops sending
 * new requests), then the server stops accepting and lets in-flight requests finish,
 * for at most SHUTDOWN_GRACE_MS; monitoring is flushed; exit 0. A second signal, or a
 * drain that outlasts the grace period, exits at once with 1.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { buildApp } from './app.js'
import { ConfigError, loadConfig, type AppConfig } from './config.js'

let config: AppConfig
try {
  config = loadConfig()
} catch (error) {
  if (!(error instanceof ConfigError)) throw error
  console.error(`Configuration error: ${error.message}`)
  process.exit(1)
}

// @sentry/node is loaded only when there is somewhere to report to.
const errorReporter = config.monitoring.dsn
  ? (await import('./monitoring/sentry-reporter.js')).sentryReporter
  : undefined
const app = buildApp(config, { errorReporter })

let stopping = false
async function shutDown(signal: NodeJS.Signals) {
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
    await app.close() // stops accepting, closes idle keep-alive connections, waits for in-flight requests
    await app.errorReporter.flush(Math.min(2_000, config.shutdownGraceMs))
    clearTimeout(deadline)
    app.log.info('stopped')
    process.exit(0)
  } catch (error) {
    app.log.error({ err: error }, 'shutdown failed')
    process.exit(1)
  }
}
process.on('SIGTERM', shutDown)
process.on('SIGINT', shutDown)

try {
  await app.listen({ host: config.host, port: config.port })
} catch (error) {
  app.log.error({ err: error }, 'could not start')
  process.exit(1)
}
