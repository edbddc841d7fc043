/**
 * @sentry/browser, in its own chunk, started after hydration (docs/architecture.md,
 * "Monitoring"). Only a navigation the router marked complete (a route's page shown,
 * no redirect) sends its transaction; `beforeSendTransaction` runs only with
 * `traceLifecycle: 'static'` (v11 streams spans by default).
 */
import * as Sentry from '@sentry/browser'
import { MAX_BREADCRUMBS } from '../../../shared/framework/constants.js'
import { isRedirect } from '../../../shared/framework/errors.js'
import type { BrowserMonitoringConfig } from '../../../shared/framework/monitoring.js'
import type { NavigationEngine } from '../browser/navigation-engine.js'
import { connectErrorSink } from './client-errors.js'
import { DENIED_URLS, IGNORED_MESSAGES } from './noise.js'

/** Set on a span once its page is shown and worth reporting. */
const COMPLETE = 'app.navigation.complete'

export interface MonitoringContext {
  readonly navigation: NavigationEngine
  readonly patternOf: (key: string) => string | undefined
}

export function startMonitoring(config: BrowserMonitoringConfig, { navigation, patternOf }: MonitoringContext): void {
  const tracing = config.tracesSampleRate > 0
  Sentry.init({
    dsn: config.dsn,
    tunnel: config.tunnel,
    environment: config.environment,
    release: config.release,
    maxBreadcrumbs: MAX_BREADCRUMBS,
    ignoreErrors: [...IGNORED_MESSAGES],
    denyUrls: [...DENIED_URLS],
    tracesSampleRate: config.tracesSampleRate,
    traceLifecycle: 'static',
    integrations: (defaults) => [
      ...defaults.filter((integration) => integration.name !== 'Breadcrumbs'),
      // Navigation breadcrumbs come from our router (below), not from History calls.
      Sentry.breadcrumbsIntegration({ history: false }),
      ...(tracing
        ? [
            Sentry.browserTracingIntegration({
              instrumentPageLoad: false,
              instrumentNavigation: false,
              instrumentBfcacheRestore: false,
              // Our router knows its redirects; Sentry's timing guess would swallow quick navigations.
              detectRedirects: false,
            }),
          ]
        : []),
    ],
    beforeSend(event, hint) {
      // A redirect thrown as a value is control flow, not a failure.
      return isRedirect(hint.originalException) ? null : event
    },
    beforeSendTransaction(event) {
      return event.contexts?.trace?.data?.[COMPLETE] === true ? event : null
    },
  })

  connectErrorSink((error, { mechanism, componentStack }) => {
    Sentry.withScope((scope) => {
      if (componentStack) scope.setContext('react', { componentStack })
      Sentry.captureException(error, { mechanism: { type: mechanism, handled: mechanism === 'react.error-boundary' } })
    })
  })

  const client = Sentry.getClient()
  const routeSpan = (key: string) => ({ name: patternOf(key) ?? key.split('?')[0]!, attributes: { 'sentry.source': 'route' as const } })

  // The page load: the document is long done (we load after hydration), so it is complete now.
  const first = navigation.shown
  if (tracing && client && first) {
    const span = Sentry.startBrowserTracingPageLoadSpan(client, routeSpan(first.key))
    if (first.kind === 'page' && patternOf(first.key)) span?.setAttribute(COMPLETE, true)
  }

  let pending: { span: Sentry.Span | undefined; redirected: boolean } | undefined
  navigation.onNavigationEvent((event) => {
    switch (event.type) {
      case 'start':
        // Starting a navigation span ends the one before, unmarked if it never completed.
        pending = {
          span: tracing && client ? Sentry.startBrowserTracingNavigationSpan(client, routeSpan(event.to), { url: event.to }) : undefined,
          redirected: false,
        }
        return
      case 'redirect':
        if (pending) pending.redirected = true
        return
      case 'shown':
        Sentry.addBreadcrumb({ category: 'navigation', data: { from: event.from, to: event.to } })
        if (pending?.span && !pending.redirected && event.kind === 'page' && patternOf(event.to)) {
          pending.span.setAttribute(COMPLETE, true)
        }
        pending = undefined
    }
  })

  // Tests wait on it.
  document.documentElement.dataset.monitoring = 'on'
}
