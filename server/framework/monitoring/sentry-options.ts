/**
 * How @sentry/node is set up, for the server (instrument.ts) and the tests alike.
 */
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
    // 0 means no server tracing at all, not spans created and then dropped: with a rate
    // set, the SDK's instrumentation builds a span for every request even at 0.
    ...(monitoring.tracesSampleRate > 0 ? { tracesSampleRate: monitoring.tracesSampleRate } : {}),
    maxBreadcrumbs: MAX_BREADCRUMBS,
    // The SDK would take the user's address from X-Forwarded-For and its kin, which
    // anyone can send: the reporter sets the address the app trusts (request.ip, which
    // follows TRUST_PROXY) instead, and those headers are left out of the event. Cookie
    // values stay on the browser (the cookie header too: the SDK filters it by name).
    // No request or response bodies: by default the HTTP instrumentation keeps the first
    // 10 KB of every incoming body and sends it with any event of that request, so an
    // action that threw sent its form (a password, a secret field) to Sentry. A report
    // says which action failed (its tags); what was posted stays here.
    dataCollection: { userInfo: false, cookies: false, httpBodies: [] },
    integrations: (defaults) => [
      // Sentry's Fastify instrumentation wraps every hook and handler in a span (44% of
      // the tunnel's CPU in a profile), names transactions after Fastify's routes (one
      // `/*` for every page here) and reports 5xx errors untagged. The app reports its
      // own failures with their digests (reportServerError), so it is left out.
      // (With a traces rate, the defaults include it.) Http is configured below.
      ...defaults.filter((integration) => integration.name !== 'Fastify' && integration.name !== 'Http'),
      // The tunnel's own requests, in and out, are neither traced nor breadcrumbs.
      Sentry.httpIntegration(untracedTraffic(monitoring)),
    ],
  }
}

/**
 * What the HTTP instrumentation leaves alone: the tunnel's incoming requests (its path
 * exactly: `/monitoring-dashboard` would be a page like any other) and its outgoing
 * ones to the ingest URLs it forwards to.
 */
export function untracedTraffic(monitoring: MonitoringConfig) {
  const tunnelTargets = new Set(monitoring.allowedDsns.map((dsn) => ingestUrlFor(dsn, monitoring.tunnelUpstream)))
  return {
    ignoreIncomingRequests: (url: string) => splitTarget(url).pathname === TUNNEL_PATH,
    ignoreOutgoingRequests: (url: string) => tunnelTargets.has(url),
  }
}
