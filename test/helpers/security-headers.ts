/** What every answer of the app must carry, read off a real page answer rather than a copied list. */
import type { FastifyInstance } from 'fastify'
import type { Test } from 'tap'

/** Headers of a page answer that are not security headers. */
const NOT_SECURITY = new Set([
  'content-type',
  'content-length',
  'cache-control',
  'cdn-cache-control',
  'etag',
  'x-request-id',
  'date',
  'connection',
  'keep-alive',
  'vary',
])

/**
 * The security headers the security plugin puts on a page answer: a refusal must carry every one
 * of them, including any added later.
 */
export async function securityHeaderNames(app: FastifyInstance, page = '/about'): Promise<string[]> {
  const answer = await app.inject(page)
  const names = Object.keys(answer.headers).filter((name) => !NOT_SECURITY.has(name))
  if (!names.includes('content-security-policy')) throw new Error('a page answer without a CSP: the header list is wrong')
  return names
}

type Headers = Readonly<Record<string, string | string[] | number | undefined>>

/**
 * Checks that an answer is the app's own, whatever refused the request: every security
 * header of a page answer of `app`, nosniff, a request id, never cached, not Fastify's
 * own body, and (given `echoed`) the request's text not echoed back.
 */
export async function appAnswerAsserter(app: FastifyInstance) {
  const names = await securityHeaderNames(app)
  return function assertAppAnswer(t: Test, headers: Headers, body: string, label: string, echoed?: string): void {
    for (const name of names) t.ok(headers[name], `${label}: ${name}`)
    t.equal(headers['x-content-type-options'], 'nosniff', `${label}: nosniff`)
    t.match(String(headers['x-request-id']), /^[0-9a-f-]{36}$/, `${label}: request id`)
    t.equal(headers['cache-control'], 'private, no-store', `${label}: never cached`)
    t.notMatch(body, /FST_ERR|Bad Request"|statusCode/, `${label}: not Fastify's own answer`)
    if (echoed) t.notOk(body.includes(echoed), `${label}: the URL is not echoed`)
  }
}
