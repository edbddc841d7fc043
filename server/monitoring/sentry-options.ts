/**
 * How @sentry/node is set up, for the server (instrument.ts) and the tests alike.
 */
import * as Sentry from '@sentry/node'
import { MAX_BREADCRUMBS } from '../../shared/constants.js'
import { TUNNEL_PATH } from '../../shared/monitoring.js'
import type { MonitoringConfig } from '../config.js'

export function sentryNodeOptions(monitoring: MonitoringConfig & { dsn: NonNullable<MonitoringConfig['dsn']> }): Sentry.NodeOptions {
  return {
    dsn: monitoring.dsn.dsn,
    environment: monitoring.environment,
    ...(monitoring.release ? { release: monitoring.release } : {}),
    tracesSampleRate: monitoring.tracesSampleRate,
    maxBreadcrumbs: MAX_BREADCRUMBS,
    integrations: [
      // The app reports its own 5xx failures, with their digests (reportServerError);
      // Sentry's Fastify hook would report them too, untagged, and dedupe would drop ours.
      Sentry.fastifyIntegration({ shouldHandleError: () => false }),
      // The tunnel's own requests are neither traced nor reported.
      Sentry.httpIntegration({ ignoreIncomingRequests: (url) => url.startsWith(TUNNEL_PATH) }),
    ],
  }
}
