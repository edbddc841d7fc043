/** What every answer of the app must carry, read off a real page answer rather than a copied list. */
import type { FastifyInstance } from 'fastify'

/** Headers of a page answer that are not security headers. */
const NOT_SECURITY = new Set(['content-type', 'content-length', 'cache-control', 'etag', 'x-request-id', 'date', 'connection', 'keep-alive', 'vary'])

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
