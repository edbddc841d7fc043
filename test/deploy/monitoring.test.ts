/**
 * What an operator imports (deploy/monitoring/): the alert rules and the dashboard parse,
 * and every metric they name exists in a running instance's /metrics, so a rename in the
 * code cannot silently leave an alert that never fires or a panel that shows nothing.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { parse } from 'yaml'
import { listenTestApp } from '../helpers/app.js'
import { projectRoot } from '../helpers/build.js'
import { scrape } from '../helpers/prometheus.js'

const dir = path.join(projectRoot, 'deploy/monitoring')
const read = (name: string) => readFileSync(path.join(dir, name), 'utf8')

interface Rule {
  readonly alert: string
  readonly expr: string
  readonly for?: string
  readonly labels?: { readonly severity?: string }
  readonly annotations?: { readonly summary?: string }
}

const alerts = parse(read('alerts.yaml')) as { groups: Array<{ name: string; rules: Rule[] }> }
const rules = alerts.groups.flatMap((group) => group.rules)
const dashboard = JSON.parse(read('grafana-dashboard.json')) as {
  panels: Array<{ title: string; targets: Array<{ expr: string }> }>
}
const podMonitor = parse(read('podmonitor.yaml')) as Record<string, any>

/** Metric names in a PromQL expression: identifiers of our families, suffixes stripped to the family. */
function metricsIn(expr: string): string[] {
  const names = expr.match(/\b(?:http|app|nodejs|process)_[a-z0-9_]+\b/g) ?? []
  return names.map((name) => name.replace(/_(bucket|sum|count)$/, ''))
}

t.test('the alert rules parse, each with an expression, a duration, a severity and a summary', async (t) => {
  t.ok(rules.length >= 5)
  for (const rule of rules) {
    t.match(
      rule,
      { alert: /^App[A-Za-z]+$/, expr: /\S/, for: /^\d+m$/, labels: { severity: /^(page|warn)$/ }, annotations: { summary: /\S/ } },
      rule.alert,
    )
  }
  const names = rules.map((rule) => rule.alert)
  for (const needed of ['AppHighErrorRatio', 'AppSlowPages', 'AppSheddingLoad', 'AppRedisDown']) t.ok(names.includes(needed), needed)
})

t.test('the dashboard parses and shows rate, errors, latency, steps, event loop, memory and shedding', async (t) => {
  const titles = dashboard.panels.map((panel) => panel.title).join(' | ')
  for (const word of ['Requests', 'error', 'Latency', 'step', 'Event loop', 'Memory', 'Shed']) t.match(titles, word)
  for (const panel of dashboard.panels) t.ok(panel.targets.length > 0, `${panel.title}: has queries`)
})

t.test('the pod monitor scrapes the port the deployment names "metrics"', async (t) => {
  t.equal(podMonitor.kind, 'PodMonitor')
  t.same(podMonitor.spec.podMetricsEndpoints[0], { port: 'metrics', path: '/metrics', interval: '15s' })
  t.same(podMonitor.spec.selector.matchLabels, { 'app.kubernetes.io/name': 'ssr-app' })
})

t.test("every metric the alerts and the dashboard name is in a running instance's /metrics", async (t) => {
  const { app, origin } = await listenTestApp(t, 'production', {
    config: {
      metrics: { host: '127.0.0.1', port: 0 },
      shedding: { maxEventLoopDelayMs: 10_000, maxEventLoopUtilization: 0 },
      rateLimit: { forms: 5, monitoring: 5, windowMs: 60_000, redisUrl: undefined },
    },
  })
  await (await fetch(`${origin}/items/7`)).arrayBuffer()
  const { types } = await scrape(`http://127.0.0.1:${app.metricsAddress()!.port}`)
  const named = new Set(
    [...rules.map((rule) => rule.expr), ...dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr))].flatMap(metricsIn),
  )
  t.ok(named.size >= 12, `${named.size} metrics named`)
  for (const name of named) t.ok(types.has(name), `${name} is exported`)
})
