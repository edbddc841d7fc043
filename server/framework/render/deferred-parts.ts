/**
 * A loader's deferred parts on the server (docs/guide/deferred-data.md). Each promise is
 * watched from the moment the loader returns, so none rejects unhandled, and settles
 * within the render timeout: a failure or a part still pending then is one server error.
 * React gets a promise carrying `status`/`value`/`reason`, so a part already there
 * renders at once.
 */
import type { FastifyRequest } from 'fastify'
import { deferredKeysOf, type DeferredOutcome, type DeferredRef } from '../../../shared/framework/deferred.js'
import type { AnyLayout, RouteMatch } from '../../../shared/framework/route-table.js'
import { serverError } from '../failures.js'
import { toBrowserJson } from '../server-only.js'
import { endStepSpan, startStepSpan } from '../tracing/step-spans.js'

/** A part's failure, already reported: only its digest is passed on. */
export class DeferredFailure extends Error {
  readonly digest: string
  constructor(digest: string) {
    super('A deferred part of the page data failed')
    this.name = 'DeferredFailure'
    this.digest = digest
  }
}

/** By name: in development the renderer is loaded apart, so the class may be another copy. */
export function isDeferredFailure(error: unknown): error is DeferredFailure {
  return error instanceof Error && error.name === 'DeferredFailure' && typeof (error as { digest?: unknown }).digest === 'string'
}

const outcomes = new WeakMap<object, Promise<DeferredOutcome>>()

interface PartSource {
  readonly routeId?: string
  readonly layoutId?: string
}

/**
 * Started before the loaders run, so a part due at the same moment (DEMO_SLOW_MS equal to
 * the timeout) is always late: timers of one duration fire in the order they were set.
 */
export class PartDeadline {
  readonly timeoutMs: number
  readonly passed: Promise<never>
  #timer: NodeJS.Timeout | undefined

  constructor(timeoutMs: number) {
    this.timeoutMs = timeoutMs
    this.passed = new Promise<never>((_, reject) => {
      this.#timer = setTimeout(() => reject(new DeadlinePassed()), timeoutMs)
      this.#timer.unref()
    })
    this.passed.catch(() => {}) // a request without parts waits for nothing
  }

  clear(): void {
    clearTimeout(this.#timer)
  }
}

class DeadlinePassed extends Error {}

class PartTimedOut extends Error {
  constructor(key: string, timeoutMs: number) {
    super(`Deferred data "${key}" did not arrive within ${timeoutMs} ms`)
  }
}

/** The data with each top-level promise replaced by a tracked one. */
export function deferParts(
  request: FastifyRequest,
  data: unknown,
  source: PartSource,
  deadline: PartDeadline,
): { data: unknown; refs: DeferredRef[] } {
  const keys = deferredKeysOf(data)
  if (keys.length === 0) return { data, refs: [] }
  const tracked: Record<string, unknown> = { ...(data as Record<string, unknown>) }
  const refs: DeferredRef[] = []
  for (const key of keys) {
    const ref: DeferredRef = source.layoutId !== undefined ? { layout: source.layoutId, key } : { key }
    tracked[key] = track(request, tracked[key] as PromiseLike<unknown>, ref, source, deadline)
    refs.push(ref)
  }
  return { data: tracked, refs }
}

function track(request: FastifyRequest, part: PromiseLike<unknown>, ref: DeferredRef, source: PartSource, deadline: PartDeadline): Promise<unknown> {
  const late = deadline.passed.catch(() => {
    throw new PartTimedOut(ref.key, deadline.timeoutMs)
  })
  type Thenable = Promise<unknown> & { status?: string; value?: unknown; reason?: unknown }
  // A value JSON cannot carry (a BigInt, a cycle) or a server-only value fails as the part, not later mid-response.
  const arrived = Promise.race([part, late]).then((value) => (toBrowserJson(value, partAnswer(ref, source), partPath(ref)), value))
  const route = source.routeId ?? 'unmatched'
  const { metrics } = request.server
  const span = startStepSpan(request, `deferred ${partPath(ref)}`, { 'app.step': 'deferred', 'app.route': route, 'app.step.name': partPath(ref) })
  const promise: Thenable = arrived.then(
    (value) => {
      metrics.deferredPart(route, 'settled')
      endStepSpan(span, undefined, 'settled')
      Object.assign(promise, { status: 'fulfilled', value })
      return value
    },
    (error: unknown) => {
      const outcome = error instanceof PartTimedOut ? 'timed_out' : 'failed'
      metrics.deferredPart(route, outcome)
      endStepSpan(span, error, outcome)
      const failure = new DeferredFailure(lateForNoOne(request, error) ? '' : partFailed(request, error, source, ref))
      Object.assign(promise, { status: 'rejected', reason: failure })
      throw failure
    },
  )
  promise.status = 'pending'
  // In the page-data payload the part is a placeholder: it comes on a line of its own.
  Object.assign(promise, { toJSON: () => null })
  const outcome = promise.then(
    (value): DeferredOutcome => ({ ...ref, value }),
    (failure: DeferredFailure): DeferredOutcome => ({ ...ref, error: { digest: failure.digest } }),
  )
  outcomes.set(promise, outcome)
  return promise
}

function partAnswer(ref: DeferredRef, source: PartSource): string {
  return `The deferred part "${ref.key}" of route "${source.routeId ?? 'unmatched'}"`
}

/** Where the part is in the page's data, as a payload path. */
const partPath = (ref: DeferredRef) => (ref.layout !== undefined ? `layouts.${ref.layout}.${ref.key}` : `data.${ref.key}`)

function partFailed(request: FastifyRequest, error: unknown, source: PartSource, ref: DeferredRef): string {
  return serverError(request, error, 'deferred data failed', { ...source, part: ref.key }).digest
}

/** A part that outlived a client who left: nobody waited for it, so it is no server error. */
function lateForNoOne(request: FastifyRequest, error: unknown): boolean {
  if (!(error instanceof PartTimedOut) || !request.raw.socket?.destroyed) return false
  request.log.debug('deferred data dropped: the client closed the connection before it arrived')
  return true
}

export function outcomesOf(
  data: { readonly data: unknown; readonly layouts?: Readonly<Record<string, unknown>> | undefined },
  refs: readonly DeferredRef[],
) {
  return refs.map((ref) => {
    const owner = (ref.layout !== undefined ? data.layouts?.[ref.layout] : data.data) as Record<string, unknown> | undefined
    const outcome = owner && outcomes.get(owner[ref.key] as object)
    return outcome ?? Promise.resolve<DeferredOutcome>({ ...ref, error: { message: 'This part of the page is missing.' } })
  })
}

/** What one request's loaders returned, their deferred parts tracked, gathered for its payload. */
export class LoadedData {
  readonly #layouts: Record<string, unknown> = {}
  readonly #deferred: DeferredRef[] = []
  readonly #request: FastifyRequest
  readonly #inRoute: PartSource
  readonly #deadline: PartDeadline
  readonly #parts: Array<Promise<unknown>> = []

  constructor(request: FastifyRequest, inRoute: PartSource, deadline: PartDeadline) {
    this.#request = request
    this.#inRoute = inRoute
    this.#deadline = deadline
  }

  /** Clears the deadline once every part has settled. */
  release(): void {
    const deadline = this.#deadline
    if (this.#parts.length === 0) deadline.clear()
    else void Promise.allSettled(this.#parts).then(() => deadline.clear())
  }

  #defer(value: unknown, source: PartSource) {
    const deferred = deferParts(this.#request, value, source, this.#deadline)
    if (deferred.refs.length > 0) {
      const owner = deferred.data as Record<string, Promise<unknown>>
      for (const ref of deferred.refs) this.#parts.push(owner[ref.key]!)
    }
    return deferred
  }

  /** A static layout that defers is an error (returned). */
  addLayout(layout: AnyLayout, value: unknown): TypeError | undefined {
    const { data, refs } = this.#defer(value, { ...this.#inRoute, layoutId: layout.id })
    this.#layouts[layout.id] = data
    this.#deferred.push(...refs)
    return layout.mode === 'static' && refs.length > 0 ? cannotDefer(`layout "${layout.id}"`, refs) : undefined
  }

  page(match: RouteMatch, value: unknown): { readonly data: unknown } | { readonly error: TypeError } {
    const { data, refs } = this.#defer(value, this.#inRoute)
    if (match.route.mode === 'static' && refs.length > 0) return { error: cannotDefer(`route "${match.id}"`, refs) }
    this.#deferred.push(...refs)
    return { data }
  }

  payloadFields(): { layouts?: Record<string, unknown>; deferred?: readonly DeferredRef[] } {
    return {
      ...(Object.keys(this.#layouts).length > 0 ? { layouts: this.#layouts } : {}),
      ...(this.#deferred.length > 0 ? { deferred: this.#deferred } : {}),
    }
  }
}

/** A static page's or layout's data is kept and shared, so it cannot wait for parts. */
function cannotDefer(what: string, refs: readonly DeferredRef[]): TypeError {
  return new TypeError(`The static ${what} cannot defer data (${refs.map((ref) => ref.key).join(', ')}): make it dynamic`)
}
