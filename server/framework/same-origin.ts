/**
 * The cross-site request check of form posts (docs/architecture.md, "Server actions"). Referer stands in when a
 * privacy setting left Origin out; without either the post cannot be checked, so it is refused.
 */
import type { FastifyRequest } from 'fastify'
import { errors, type ClientError } from './error-registry.js'
import { isHttps } from './request-scheme.js'

/** As the client reached it, through a trusted proxy. */
export function ownOrigin(request: FastifyRequest): string | undefined {
  try {
    return new URL(`${isHttps(request) ? 'https' : 'http'}://${request.host}`).origin
  } catch {
    return undefined // a Host header that is not a host
  }
}

function originOf(url: string): string | undefined {
  try {
    const origin = new URL(url).origin
    return origin === 'null' ? undefined : origin
  } catch {
    return undefined
  }
}

export function crossOriginProblem(request: FastifyRequest, allowedOrigins: ReadonlySet<string>): ClientError | undefined {
  const { origin, referer } = request.headers
  if (origin === undefined && referer === undefined) return errors.NO_ORIGIN()
  const claimed = origin !== undefined ? originOf(origin) : originOf(referer!)
  if (!claimed) return errors.OPAQUE_ORIGIN()
  if (claimed === ownOrigin(request) || allowedOrigins.has(claimed)) return undefined
  return errors.CROSS_ORIGIN()
}
