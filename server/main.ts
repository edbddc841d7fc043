/**
 * The process: read the environment, build the app, listen, and close cleanly on
 * SIGTERM/SIGINT (readiness turns 503 first, in-flight requests finish).
 */
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

async function shutDown(signal: NodeJS.Signals) {
  app.log.info({ signal }, 'shutting down')
  app.lifecycle.draining = true
  try {
    await app.close()
    await app.errorReporter.flush(2_000)
    process.exit(0)
  } catch (error) {
    app.log.error({ err: error }, 'shutdown failed')
    process.exit(1)
  }
}
process.once('SIGTERM', shutDown)
process.once('SIGINT', shutDown)

try {
  await app.listen({ host: config.host, port: config.port })
} catch (error) {
  app.log.error({ err: error }, 'could not start')
  process.exit(1)
}
