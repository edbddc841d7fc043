/**
 * The series of `http_request_duration_seconds` (and so of `http_requests_total`) by route id,
 * method, status class and request kind, found per response without building a key: one Map
 * lookup by the route label, then an array index from the other three.
 */
import type { RequestKind } from '../request-kinds.js'
import type { HistogramSeries, PlainHistogram } from './plain-histogram.js'

/** The request kinds as an operator names them. */
export const KIND_LABELS: Record<RequestKind, string> = {
  page: 'document',
  data: 'data',
  action: 'action',
  api: 'api',
  assets: 'static',
  monitoring: 'monitoring',
}

/** Any other method is `OTHER`: a visitor chooses the method, so it cannot name a series. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'OTHER'] as const
const METHOD_INDEX: Readonly<Record<string, number>> = Object.assign(
  Object.create(null) as Record<string, number>,
  Object.fromEntries(METHODS.map((method, i) => [method, i])),
)
const KINDS = Object.keys(KIND_LABELS) as RequestKind[]
const KIND_INDEX = Object.fromEntries(KINDS.map((kind, i) => [kind, i])) as Record<RequestKind, number>
/** Status classes 0xx to 9xx: Fastify sends 100 to 599 only, the rest is room to spare. */
const CLASSES = 10
const SLOTS = METHODS.length * CLASSES * KINDS.length

export class RequestSeriesTable {
  /** Per route label, a slot per method, status class and kind, filled as they occur. */
  private readonly byRoute = new Map<string, Array<HistogramSeries | undefined>>()

  constructor(private readonly histogram: PlainHistogram) {}

  of(route: string, method: string, status: number, kind: RequestKind): HistogramSeries {
    let slots = this.byRoute.get(route)
    if (!slots) {
      slots = new Array<HistogramSeries | undefined>(SLOTS).fill(undefined)
      this.byRoute.set(route, slots)
    }
    const methodIndex = METHOD_INDEX[method] ?? METHODS.length - 1
    const statusClass = Math.min(CLASSES - 1, Math.max(0, Math.floor(status / 100)))
    const slot = (methodIndex * CLASSES + statusClass) * KINDS.length + KIND_INDEX[kind]
    let series = slots[slot]
    if (!series) {
      series = this.histogram.seriesFor({
        route,
        method: METHODS[methodIndex]!,
        status_class: `${statusClass}xx`,
        kind: KIND_LABELS[kind],
      })
      slots[slot] = series
    }
    return series
  }

  /** Every series so far, in the order they first occurred. */
  all(): readonly HistogramSeries[] {
    return this.histogram.all()
  }
}
