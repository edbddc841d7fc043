/**
 * Times the steps of a request (guards, loaders, the action, the render) into the metrics,
 * with SERVER_TIMING on into the response's `Server-Timing` header, and with traces on into
 * a span each. None on, it measures nothing.
 */
import { performance } from 'node:perf_hooks'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { TimedStep } from './metrics.js'
import { endStepSpan, startStepSpan } from '../tracing/step-spans.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** With SERVER_TIMING on: the steps timed so far (a property: a WeakMap of requests burdens the GC). */
    serverTimings?: string[] | undefined
  }
}

function observe(request: FastifyRequest, step: TimedStep, route: string | undefined, name: string, ms: number): void {
  const { metrics, config } = request.server
  metrics.step(step, route ?? 'unmatched', name, ms / 1000)
  if (!config.serverTiming) return
  // The name is a layout id, `page` or an action's name: identifiers, safe inside a quoted string.
  const entries = (request.serverTimings ??= [])
  entries.push(`${step};${name ? `desc="${name}";` : ''}dur=${ms.toFixed(1)}`)
}

function measuring(request: FastifyRequest): boolean {
  return request.server.metrics.enabled || request.server.config.serverTiming || request.traceContext !== undefined
}

function stepSpan(request: FastifyRequest, step: TimedStep, route: string | undefined, name: string) {
  return startStepSpan(request, name ? `${step} ${name}` : step, {
    'app.step': step,
    'app.route': route ?? 'unmatched',
    ...(name ? { 'app.step.name': name } : {}),
  })
}

/** Returns `work` itself: the step is observed when it settles, whichever way, before whoever awaits it. */
export function timeStep<T>(request: FastifyRequest, step: TimedStep, route: string | undefined, name: string, work: Promise<T>): Promise<T> {
  if (!measuring(request)) return work
  const start = performance.now()
  const span = stepSpan(request, step, route, name)
  const done = (error?: unknown) => {
    observe(request, step, route, name, performance.now() - start)
    endStepSpan(span, error)
  }
  work.then(() => done(), done)
  return work
}

export function timeSync<T>(request: FastifyRequest, step: TimedStep, route: string | undefined, work: () => T): T {
  if (!measuring(request)) return work()
  const start = performance.now()
  const span = stepSpan(request, step, route, '')
  let failed: unknown
  try {
    return work()
  } catch (error) {
    failed = error ?? new Error('thrown')
    throw error
  } finally {
    observe(request, step, route, '', performance.now() - start)
    endStepSpan(span, failed)
  }
}

/** With SERVER_TIMING on: the steps timed so far go out with the response's headers. */
export function sendServerTiming(app: FastifyInstance): void {
  app.decorateRequest('serverTimings', undefined)
  app.addHook('onSend', async function addServerTiming(request, reply) {
    const entries = request.serverTimings
    if (entries) reply.header('server-timing', entries.join(', '))
  })
}
