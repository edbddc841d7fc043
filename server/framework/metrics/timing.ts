/** Times one step of a request (a guard, a loader, an action, a render) into the metrics, when they are on. */
import { performance } from 'node:perf_hooks'
import type { FastifyRequest } from 'fastify'
import type { TimedStep } from './metrics.js'

/** Returns `work` itself: the step is observed when it settles, whichever way. */
export function timeStep<T>(request: FastifyRequest, step: TimedStep, route: string | undefined, name: string, work: Promise<T>): Promise<T> {
  const { metrics } = request.server
  if (!metrics.enabled) return work
  const start = performance.now()
  const observe = () => metrics.step(step, route ?? 'unmatched', name, (performance.now() - start) / 1000)
  work.then(observe, observe)
  return work
}
