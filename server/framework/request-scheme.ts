/**
 * Whether the client reached us over https: the connection's own scheme, or a trusted
 * proxy's X-Forwarded-Proto (Fastify's `request.protocol`, which gives the header's
 * value as sent). Schemes are case-insensitive, so `HTTPS` is https; anything but https
 * is taken as http. What decides the Secure cookie attribute, HSTS and this site's origin.
 */
import type { FastifyRequest } from 'fastify'

export function isHttps(request: FastifyRequest): boolean {
  // No protocol when the socket is already gone.
  return request.protocol?.toLowerCase() === 'https'
}
