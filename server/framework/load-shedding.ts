/**
 * Load shedding (docs/deploy.md, "Load shedding"): when the event loop falls behind
 * (MAX_EVENT_LOOP_DELAY_MS, MAX_EVENT_LOOP_UTILIZATION), new requests get a 503 with
 * `Retry-After` before any work is done, in their kind's form (the error page, the /api
 * JSON), and readiness says not ready so the balancer sends traffic elsewhere. The work
 * already admitted finishes on a loop that is no longer flooded. @fastify/under-pressure
 * measures; routes that must keep answering (liveness, readiness) say `shed: false`.
 */
import underPressure from '@fastify/under-pressure'
import type { FastifyInstance } from 'fastify'
import { errors } from './error-registry.js'
import { throttledWarning } from './redis-connection.js'
import { requestKindOf } from './request-kinds.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `false`: answered even while the instance sheds load (health and readiness probes). */
    shed?: boolean
  }
  interface FastifyInstance {
    /** True while requests are being shed; readiness then answers 503. */
    overloaded(): boolean
  }
}

export interface SheddingLimits {
  /** 0: not checked. */
  readonly maxEventLoopDelayMs: number
  /** 0: not checked. */
  readonly maxEventLoopUtilization: number
}

/** Seconds a shed client is told to wait: long enough for the loop to catch up, short enough not to lose it. */
const RETRY_AFTER_S = 5
/** How often the loop is measured; tests shorten it. */
export const DEFAULT_SAMPLE_INTERVAL_MS = 500

export function registerLoadShedding(app: FastifyInstance, limits: SheddingLimits, sampleIntervalMs = DEFAULT_SAMPLE_INTERVAL_MS): void {
  if (limits.maxEventLoopDelayMs === 0 && limits.maxEventLoopUtilization === 0) {
    app.decorate('overloaded', () => false)
    return
  }
  const warn = throttledWarning(app.log, 'shedding load: new requests get 503 until the event loop catches up', 60_000)
  app.register(underPressure, {
    maxEventLoopDelay: limits.maxEventLoopDelayMs,
    maxEventLoopUtilization: limits.maxEventLoopUtilization,
    // The last interval, not the average since start: an instance recovers as soon as it is idle.
    eventLoopUtilizationMode: 'interval',
    sampleInterval: sampleIntervalMs,
    pressureHandler(request, reply, type, value) {
      if (request.routeOptions.config?.shed === false) return undefined
      warn({ type, value, limits })
      app.metrics.shed(requestKindOf(request))
      reply.header('retry-after', String(RETRY_AFTER_S))
      app.errorResponses.send(request, reply, errors.OVERLOADED())
      // A promise: under-pressure then calls next(), which Fastify ignores for a sent reply.
      return Promise.resolve()
    },
  })
  app.after(() => {
    app.decorate('overloaded', () => app.isUnderPressure())
  })
}
