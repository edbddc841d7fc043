/**
 * `request.protocol` gives a trusted proxy's X-Forwarded-Proto as sent, and schemes are case-insensitive.
 * Decides the Secure cookie attribute, HSTS and this site's origin.
 */
import type { FastifyRequest } from 'fastify'

export function isHttps(request: FastifyRequest): boolean {
  // No protocol when the socket is already gone.
  return request.protocol?.toLowerCase() === 'https'
}
