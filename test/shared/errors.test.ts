import t from 'tap'
import { HttpError, isHttpError, isNotFound, isRedirect, notFound, redirect } from '../../shared/framework/errors.js'

t.test('notFound and redirect are recognised by their checks, and only by theirs', async (t) => {
  const missing = notFound()
  const moved = redirect('/about', 301)
  t.ok(isNotFound(missing))
  t.notOk(isRedirect(missing))
  t.ok(isRedirect(moved))
  t.notOk(isNotFound(moved))
  t.equal(moved.status, 301)
  t.equal(moved.location, '/about')
  t.equal(redirect('/x').status, 302, 'redirect defaults to 302')
  for (const value of [new Error('x'), null, undefined, 'not-found', { status: 404 }]) {
    t.notOk(isNotFound(value))
    t.notOk(isRedirect(value))
  }
})

t.test('redirect refuses targets off this site and statuses that are not redirects', async (t) => {
  for (const to of ['https://evil.example/', '//evil.example/', '/\\evil.example', 'relative']) {
    t.throws(() => redirect(to), /takes a path on this site/, to)
  }
  t.throws(() => redirect('/x', 200 as never), /status must be one of/)
})

t.test('HttpError exposes its message only below 500', async (t) => {
  t.equal(new HttpError(403, 'Members only').expose, true)
  t.equal(new HttpError(403, 'Members only', { expose: false }).expose, false)
  t.equal(new HttpError(503, 'Upstream down', { expose: true }).expose, false)
  t.ok(isHttpError(new HttpError(404, 'x')))
  t.notOk(isHttpError(new Error('x')))
  t.throws(() => new HttpError(200, 'fine'), /400-599/)
})
