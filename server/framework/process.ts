/** What production (main.ts) and development (scripts/dev-server.ts) do the same way at start. */
import type { FastifyInstance } from 'fastify'
import { ConfigError, loadConfig, type AppConfig, type Variable } from './config.js'
import { ManifestError, readManifest } from './manifest.js'

/** Exits 1 with one line naming the bad variable, the framework's or the product's (`variables`). */
export function loadConfigOrExit({ clientBuild = false, variables = [] as readonly Variable[] } = {}): AppConfig {
  try {
    const config = loadConfig(process.env, variables)
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

/** `npm run dev`'s supervisor (scripts/dev.ts) stops on it instead of waiting for an edit, which would not free the port. */
export const EXIT_PORT_IN_USE = 3

export function portInUseMessage(host: string, port: number): string {
  return `port ${port} is already in use on ${host}: stop the process that listens there, or set PORT to another port`
}

export function isAddressInUse(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === 'EADDRINUSE'
}

export async function listenOrExit(app: FastifyInstance, config: AppConfig): Promise<void> {
  try {
    await app.listen({ host: config.host, port: config.port })
  } catch (error) {
    if (isAddressInUse(error)) {
      app.log.error(`could not start: ${portInUseMessage(config.host, config.port)}`)
      process.exit(EXIT_PORT_IN_USE)
    }
    app.log.error({ err: error }, 'could not start')
    process.exit(1)
  }
}
