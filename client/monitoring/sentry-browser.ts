/**
 * @sentry/browser, in its own chunk, started after hydration (DESIGN §7): reports go
 * through the same-origin tunnel, at most MAX_BREADCRUMBS breadcrumbs are kept, the
 * router's navigations are the navigation breadcrumbs, redirect-type errors and the
 * noise in noise.ts are dropped.
 */
import * as Sentry from '@sentry/browser'
import { MAX_BREADCRUMBS } from '../../shared/constants.js'
import { isRedirect } from '../../shared/errors.js'
import type { BrowserMonitoringConfig } from '../../shared/monitoring.js'
import type { NavigationEngine } from '../runtime/navigation-engine.js'
import { connectErrorSink } from './client-errors.js'
import { DENIED_URLS, IGNORED_MESSAGES } from './noise.js'

export function startMonitoring(config: BrowserMonitoringConfig, navigation: NavigationEngine | undefined): void {
  Sentry.init({
    dsn: config.dsn,
    tunnel: config.tunnel,
    environment: config.environment,
    release: config.release,
    maxBreadcrumbs: MAX_BREADCRUMBS,
    ignoreErrors: [...IGNORED_MESSAGES],
    denyUrls: [...DENIED_URLS],
    integrations: (defaults) => [
      ...defaults.filter((integration) => integration.name !== 'Breadcrumbs'),
      // Navigation breadcrumbs come from our router (below), not from History calls.
      Sentry.breadcrumbsIntegration({ history: false }),
    ],
    beforeSend(event, hint) {
      // A redirect thrown as a value is control flow, not a failure.
      return isRedirect(hint.originalException) ? null : event
    },
  })

  connectErrorSink((error, { mechanism, componentStack }) => {
    Sentry.withScope((scope) => {
      if (componentStack) scope.setContext('react', { componentStack })
      Sentry.captureException(error, { mechanism: { type: mechanism, handled: mechanism === 'react.error-boundary' } })
    })
  })

  navigation?.onNavigated((from, to) => {
    Sentry.addBreadcrumb({ category: 'navigation', data: { from, to } })
  })
  // Visible to tests and to anyone checking a page: error reporting is live.
  document.documentElement.dataset.monitoring = 'on'
}
