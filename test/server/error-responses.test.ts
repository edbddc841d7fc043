/**
 * The app's one error handler sends what a route throws in the form of the route's
 * request kind: here on a bare Fastify app with the framework's error plugin, so any
 * kind can throw anything.
 */
import Fastify from 'fastify'
import t from 'tap'
import { notFound, redirect } from '../../shared/framework/errors.js'
import { createErrorResponses } from '../../server/framework/error-responses.js'
import { noopReporter } from '../../server/framework/monitoring/error-reporter.js'
import errorsPlugin from '../../server/framework/plugins/errors.js'
import type { RequestKind } from '../../server/framework/request-kinds.js'

async function appThrowing(t: { teardown(fn: () => unknown): void }, thrown: () => unknown) {
  const app = Fastify({ logger: false })
  app.decorate('errorResponses', createErrorResponses({ buildId: 'build-1', stylesheets: [], securityHeaders: {} }))
  app.decorate('errorReporter', noopReporter)
  await app.register(errorsPlugin)
  for (const kind of ['page', 'data', 'api', 'assets', 'monitoring'] as const satisfies readonly RequestKind[]) {
    app.get(`/${kind}`, { config: { requestKind: kind } }, async () => {
      throw thrown()
    })
  }
  t.teardown(() => app.close())
  return app
}

t.test('a thrown notFound(): the 404 of each kind', async (t) => {
  const app = await appThrowing(t, () => notFound('an internal reason'))
  const page = await app.inject('/page')
  t.equal(page.statusCode, 404)
  t.match(page.body, '<p>This page could not be found.</p>')
  const data = await app.inject('/data')
  t.equal(data.statusCode, 404)
  t.same(data.json(), { kind: 'not-found', status: 404, buildId: 'build-1' }, 'page data: the not-found payload')
  t.match((await app.inject('/api')).json(), { error: { code: 'APP_ERR_NOT_FOUND', message: 'Nothing was found at this address.' } })
  t.equal((await app.inject('/assets')).body, 'There is no asset at this address.')
  t.equal((await app.inject('/monitoring')).body, 'The monitoring tunnel answers at /monitoring only.')
  for (const kind of ['page', 'data', 'api', 'assets', 'monitoring']) {
    const res = await app.inject(`/${kind}`)
    t.equal(res.headers['cache-control'], 'private, no-store', kind)
    t.notMatch(res.body, 'an internal reason', `${kind}: the thrower's message stays in the server`)
  }
})

t.test('a thrown redirect(): a 3xx, and page data carries it as data', async (t) => {
  const app = await appThrowing(t, () => redirect('/login?next=/account', 303))
  const page = await app.inject('/page')
  t.equal(page.statusCode, 303)
  t.equal(page.headers.location, '/login?next=/account')
  const data = await app.inject('/data')
  t.equal(data.statusCode, 200, 'a fetch would follow a 3xx itself')
  t.same(data.json(), { kind: 'redirect', status: 303, location: '/login?next=/account', buildId: 'build-1' })
})
