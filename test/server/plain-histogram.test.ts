/**
 * The plain histogram behind the request and step metrics
 * (server/framework/metrics/plain-histogram.ts) is exposed exactly as prom-client's own
 * histogram would be for the same observations, so dashboards see no difference; and the
 * request series table names methods and status classes as the metrics contract does.
 */
import t from 'tap'
import { Histogram, Registry } from 'prom-client'
import { PlainHistogram } from '../../server/framework/metrics/plain-histogram.js'
import { RequestSeriesTable } from '../../server/framework/metrics/request-series.js'

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
const LABELS = ['step', 'route', 'name'] as const

function both() {
  const theirs = new Registry()
  const ours = new Registry()
  const config = { name: 'app_step_duration_seconds', help: 'Time per step, by `route`.', buckets: BUCKETS }
  const histogram = new Histogram({ ...config, labelNames: LABELS, registers: [theirs] })
  const plain = new PlainHistogram({ ...config, labelNames: LABELS, registry: ours })
  return { theirs, ours, histogram, plain }
}

t.test("the exposition is prom-client's, line for line", async (t) => {
  const { theirs, ours, histogram, plain } = both()
  t.equal(await ours.metrics(), await theirs.metrics(), 'no series yet: only the family is declared')

  const observations: Array<[Record<(typeof LABELS)[number], string>, number]> = [
    [{ step: 'loader', route: 'items', name: 'page' }, 0.0004],
    [{ step: 'loader', route: 'items', name: 'page' }, 0.001],
    [{ step: 'render', route: 'items', name: '' }, 0.3],
    [{ step: 'loader', route: 'items', name: 'page' }, 12],
    [{ step: 'action', route: 'say "hi"\\\n', name: 'sign' }, 0.07],
    [{ step: 'render', route: 'items', name: '' }, 0.1 + 0.2],
  ]
  const kept = new Map<string, ReturnType<PlainHistogram['seriesFor']>>()
  for (const [labels, value] of observations) {
    histogram.labels(labels).observe(value)
    const key = JSON.stringify(labels)
    if (!kept.has(key)) kept.set(key, plain.seriesFor(labels))
    kept.get(key)!.observe(value)
  }
  t.equal(await ours.metrics(), await theirs.metrics())
  // As a consumer reads it: prom-client's sums carry `exemplar: undefined`, which JSON drops.
  const json = async (registry: Registry) => JSON.parse(JSON.stringify(await registry.getMetricsAsJSON())) as unknown
  t.same(await json(ours), await json(theirs), 'and as JSON')

  theirs.resetMetrics()
  ours.resetMetrics()
  t.equal(await ours.metrics(), await theirs.metrics(), 'reset: no series again')
})

t.test('a value that is not a number is dropped, not kept in the sum', async (t) => {
  const { plain } = both()
  const series = plain.seriesFor({ step: 'guard', route: 'r', name: '' })
  series.observe(Number.NaN)
  series.observe(0.002)
  t.equal(series.count, 1)
  t.equal(series.sum, 0.002)
})

t.test('a series needs a value for every label', async (t) => {
  const { plain } = both()
  t.throws(() => plain.seriesFor({ step: 'guard', route: 'r' }), /no value for the label name/)
})

t.test('requests: one series per route, method, status class and kind; other methods are OTHER', async (t) => {
  const registry = new Registry()
  const table = new RequestSeriesTable(
    new PlainHistogram({ name: 'd', help: 'd', labelNames: ['route', 'method', 'status_class', 'kind'], buckets: BUCKETS, registry }),
  )
  const first = table.of('items', 'GET', 200, 'page')
  t.equal(table.of('items', 'GET', 204, 'page'), first, 'the same class is the same series')
  t.not(table.of('items', 'GET', 200, 'data'), first)
  t.not(table.of('about', 'GET', 200, 'page'), first)
  t.equal(table.of('items', 'BREW', 404, 'page'), table.of('items', 'PROPFIND', 418, 'page'))
  t.same(table.of('items', 'BREW', 404, 'page').labels, { route: 'items', method: 'OTHER', status_class: '4xx', kind: 'document' })
  t.same(table.of('/assets/*', 'HEAD', 304, 'assets').labels, { route: '/assets/*', method: 'HEAD', status_class: '3xx', kind: 'static' })
  t.equal(table.all().length, 5)
})
