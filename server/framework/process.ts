/**
 * What every server process does the same way, production (main.ts) and development
 * (scripts/dev-server.ts): read the configuration or stop with a message naming the bad
 * variable, and listen or stop with the reason in the log.
 */
import type { FastifyInstance } from 'fastify'
import { ConfigError, loadConfig, type AppConfig } from './config.js'
import { ManifestError, readManifest } from './manifest.js'

/**
 * The configuration, or exit 1 with one line naming the bad variable. `clientBuild`:
 * the production server also needs the client build where CLIENT_DIR says.
 */
export function loadConfigOrExit({ clientBuild = false } = {}): AppConfig {
  try {
    const config = loadConfig()
    if (clientBuild) checkClientBuild(config.clientDir)
    return config
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    console.error(`Configuration error: ${error.message}`)
    process.exit(1)
  }
}

function checkClientBuild(clientDir: string): void {
  try {
    readManifest(clientDir)
  } catch (error) {
    if (!(error instanceof ManifestError)) throw error
    throw new ConfigError('CLIENT_DIR', `must be the client build's folder (run "npm run build"): ${error.message}`)
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
