/** How @sentry/node is set up, for the server (instrument.ts) and the tests alike. */
import * as Sentry from '@sentry/node'
import { MAX_BREADCRUMBS } from '../../../shared/framework/constants.js'
import { splitTarget } from '../../../shared/framework/location.js'
import { ingestUrlFor, TUNNEL_PATH } from '../../../shared/framework/monitoring.js'
import type { MonitoringConfig } from '../config.js'

export function sentryNodeOptions(monitoring: MonitoringConfig & { dsn: NonNullable<MonitoringConfig['dsn']> }): Sentry.NodeOptions {
  return {
    dsn: monitoring.dsn.dsn,
    environment: monitoring.environment,
    ...(monitoring.release ? { release: monitoring.release } : {}),
    // With a rate set, the SDK builds a span for every request even at 0.
    ...(monitoring.tracesSampleRate > 0 ? { tracesSampleRate: monitoring.tracesSampleRate } : {}),
    maxBreadcrumbs: MAX_BREADCRUMBS,
    // The SDK would take the user's address from X-Forwarded-For, which anyone can send: the reporter
    // sets request.ip. No bodies: by default the first 10 KB of every incoming body goes with any
    // event of that request, so an action that threw would send its form (a password) to Sentry.
    dataCollection: { userInfo: false, cookies: false, httpBodies: [] },
    integrations: (defaults) => [
      // Sentry's Fastify instrumentation spans every hook (44% of the tunnel's CPU in a profile), names
      // every page `/*` and reports 5xx untagged; the app reports its own failures with their digests.
      ...defaults.filter((integration) => integration.name !== 'Fastify' && integration.name !== 'Http'),
      Sentry.httpIntegration(untracedTraffic(monitoring)),
    ],
  }
}

/** The tunnel's own traffic, in and out; its path exactly: `/monitoring-dashboard` would be a page like any other. */
export function untracedTraffic(monitoring: MonitoringConfig) {
  const tunnelTargets = new Set(monitoring.allowedDsns.map((dsn) => ingestUrlFor(dsn, monitoring.tunnelUpstream)))
  return {
    ignoreIncomingRequests: (url: string) => splitTarget(url).pathname === TUNNEL_PATH,
    ignoreOutgoingRequests: (url: string) => tunnelTargets.has(url),
  }
}
