/**
 * What every server process does the same way, production (main.ts) and development
 * (scripts/dev-server.ts): read the configuration or stop with a message naming the bad
 * variable, and listen or stop with the reason in the log.
 */
import type { FastifyInstance } from 'fastify'
import { ConfigError, loadConfig, type AppConfig } from './config.js'

export function loadConfigOrExit(): AppConfig {
  try {
    return loadConfig()
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    console.error(`Configuration error: ${error.message}`)
    process.exit(1)
  }
}

export async function listenOrExit(app: FastifyInstance, config: AppConfig): Promise<void> {
  try {
    await app.listen({ host: config.host, port: config.port })
  } catch (error) {
    app.log.error({ err: error }, 'could not start')
    process.exit(1)
  }
}
