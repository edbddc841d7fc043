/**
 * What an operator's Prometheus scrapes (docs/deploy.md, "Metrics"). Every label value comes from a
 * closed set (the route and layout tables, the methods below, status classes, request kinds), so no
 * URL a visitor sends adds a series. With METRICS_PORT unset the app gets NO_METRICS: no registry,
 * no hooks, nothing measured.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client'
import type { RequestKind } from '../request-kinds.js'
import { HistogramSeries, PlainHistogram } from './plain-histogram.js'
import { KIND_LABELS, RequestSeriesTable } from './request-series.js'

export type DeferredOutcome = 'settled' | 'failed' | 'timed_out'
export type TimedStep = 'guard' | 'loader' | 'action' | 'render'

/** What the rest of the server tells the metrics; every method is free when metrics are off. */
export interface Metrics {
  readonly enabled: boolean
  request(route: string, method: string, status: number, kind: RequestKind, seconds: number): void
  /** `name`: the layout id or `page` for loaders, the action's name for actions, empty otherwise. */
  step(step: TimedStep, route: string, name: string, seconds: number): void
  deferredPart(route: string, outcome: DeferredOutcome): void
  staticPage(hit: boolean): void
  rateLimited(limit: string): void
  sessionStoreError(): void
  shed(kind: RequestKind): void
}

export const NO_METRICS: Metrics = {
  enabled: false,
  request() {},
  step() {},
  deferredPart() {},
  staticPage() {},
  rateLimited() {},
  sessionStoreError() {},
  shed() {},
}

/** What the metrics read when scraped rather than count as it happens. */
export interface MetricsSources {
  readonly draining: () => boolean
  readonly overloaded: () => boolean
  /** Entries and bytes of the kept static pages. */
  readonly staticPages: () => { readonly entries: number; readonly bytes: number }
  /** Undefined when no Redis is configured. */
  readonly redisUp: () => boolean | undefined
}

// From a cached static page (a fraction of a millisecond) to the render timeout (10 s).
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

export interface PrometheusMetrics extends Metrics {
  readonly registry: Registry
  stop(): void
}

export function createMetrics(sources: MetricsSources): PrometheusMetrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })

  // Requests and steps are counted per response: in plain series, handed to prom-client when scraped.
  // Registered in the order of the exposition: the counter, then the histograms.
  new Counter({
    name: 'http_requests_total',
    help: 'Requests answered, by route id, method, status class and request kind.',
    labelNames: ['route', 'method', 'status_class', 'kind'] as const,
    registers: [registry],
    // The histogram's count is the number of requests: the counter reads it rather than counting twice.
    collect() {
      this.reset()
      for (const series of requestSeries.all()) if (series.count > 0) this.inc(series.labels, series.count)
    },
  })
  const requestSeries = new RequestSeriesTable(
    new PlainHistogram({
      name: 'http_request_duration_seconds',
      help: 'Time from the request to its response sent, by route id, method, status class and request kind.',
      labelNames: ['route', 'method', 'status_class', 'kind'],
      buckets: LATENCY_BUCKETS,
      registry,
    }),
  )
  const steps = new PlainHistogram({
    name: 'app_step_duration_seconds',
    help: 'Time spent in guards, loaders, actions and the render, by route id; `name` is the layout id, `page` or the action.',
    labelNames: ['step', 'route', 'name'],
    buckets: LATENCY_BUCKETS,
    registry,
  })
  // Steps are named by the route and layout tables and the actions: bounded by the code.
  const stepSeries = new Map<string, HistogramSeries>()
  const deferred = new Counter({
    name: 'app_deferred_parts_total',
    help: 'Deferred parts ended, by route id and outcome (settled, failed, timed_out).',
    labelNames: ['route', 'outcome'] as const,
    registers: [registry],
  })
  new Counter({
    name: 'app_static_page_cache_lookups_total',
    help: 'Static page cache lookups by result (hit, miss).',
    labelNames: ['result'] as const,
    registers: [registry],
    collect() {
      this.reset()
      for (const result of ['hit', 'miss'] as const) if (staticCounts[result] > 0) this.inc({ result }, staticCounts[result])
    },
  })
  // Two plain counts read when scraped; as before, a result appears from its first lookup.
  const staticCounts = { hit: 0, miss: 0 }
  new Gauge({
    name: 'app_static_page_cache_entries',
    help: 'Static pages kept in memory.',
    registers: [registry],
    collect() {
      this.set(sources.staticPages().entries)
    },
  })
  new Gauge({
    name: 'app_static_page_cache_bytes',
    help: 'Bytes of the static pages kept in memory.',
    registers: [registry],
    collect() {
      this.set(sources.staticPages().bytes)
    },
  })
  const rateLimited = new Counter({
    name: 'app_rate_limited_requests_total',
    help: 'Requests refused with 429, by limit (forms, monitoring).',
    labelNames: ['limit'] as const,
    registers: [registry],
  })
  const sessionErrors = new Counter({
    name: 'app_session_store_errors_total',
    help: 'Session store operations that failed (the store did not answer).',
    registers: [registry],
  })
  new Gauge({
    name: 'app_redis_up',
    help: '1 when the Redis connection is ready, 0 when not; absent without REDIS_URL.',
    registers: [registry],
    collect() {
      const up = sources.redisUp()
      if (up === undefined) this.reset()
      else this.set(up ? 1 : 0)
    },
  })
  new Gauge({
    name: 'app_draining',
    help: '1 from the stop signal on (readiness answers 503), else 0.',
    registers: [registry],
    collect() {
      this.set(sources.draining() ? 1 : 0)
    },
  })

  new Gauge({
    name: 'app_overloaded',
    help: '1 while the instance sheds load (readiness answers 503), else 0.',
    registers: [registry],
    collect() {
      this.set(sources.overloaded() ? 1 : 0)
    },
  })
  const shed = new Counter({
    name: 'app_shed_requests_total',
    help: 'Requests refused with 503 because the event loop was behind, by request kind.',
    labelNames: ['kind'] as const,
    registers: [registry],
  })

  // Utilization since the previous scrape: what an autoscaler wants, and what shedding reads.
  let lastUtilization = performance.eventLoopUtilization()
  new Gauge({
    name: 'nodejs_eventloop_utilization_ratio',
    help: 'Share of time the event loop was busy since the previous scrape (0 to 1).',
    registers: [registry],
    collect() {
      const now = performance.eventLoopUtilization()
      this.set(performance.eventLoopUtilization(now, lastUtilization).utilization)
      lastUtilization = now
    },
  })
  // prom-client's own lag gauge samples once per scrape; this histogram sees every delay between scrapes.
  const delay = monitorEventLoopDelay({ resolution: 20 })
  delay.enable()
  new Gauge({
    name: 'nodejs_eventloop_delay_p99_seconds',
    help: '99th percentile of the event loop delay since the previous scrape.',
    registers: [registry],
    collect() {
      this.set(delay.count > 0 ? delay.percentile(99) / 1e9 : 0)
      delay.reset()
    },
  })

  return {
    enabled: true,
    registry,
    request(route, method, status, kind, seconds) {
      requestSeries.of(route, method, status, kind).observe(seconds)
    },
    step(step, route, name, seconds) {
      const key = `${step}\n${route}\n${name}`
      let series = stepSeries.get(key)
      if (!series) {
        series = steps.seriesFor({ step, route, name })
        stepSeries.set(key, series)
      }
      series.observe(seconds)
    },
    deferredPart(route, outcome) {
      deferred.inc({ route, outcome })
    },
    staticPage(hit) {
      if (hit) staticCounts.hit++
      else staticCounts.miss++
    },
    rateLimited(limit) {
      rateLimited.inc({ limit })
    },
    sessionStoreError() {
      sessionErrors.inc()
    },
    shed(kind) {
      shed.inc({ kind: KIND_LABELS[kind] })
    },
    stop() {
      delay.disable()
    },
  }
}
