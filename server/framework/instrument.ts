/**
 * Initialises @sentry/node before the app is imported (docs/architecture.md, "Monitoring", "Known pitfalls").
 * Imported only when SENTRY_DSN is set, so a server without monitoring loads no instrumentation.
 */
import * as Sentry from '@sentry/node'
import { ConfigError, loadConfig } from './config.js'
import { sentryNodeOptions } from './monitoring/sentry-options.js'

try {
  const { monitoring } = loadConfig()
  if (monitoring.dsn) Sentry.init(sentryNodeOptions({ ...monitoring, dsn: monitoring.dsn }))
} catch (error) {
  // main.ts reports a bad configuration and exits; there is nothing to set up here.
  if (!(error instanceof ConfigError)) throw error
}
