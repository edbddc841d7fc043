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

const app = buildApp(config)

async function shutDown(signal: NodeJS.Signals) {
  app.log.info({ signal }, 'shutting down')
  app.lifecycle.draining = true
  try {
    await app.close()
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
