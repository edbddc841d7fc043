/** The session cookie: its name and the attributes it is set and expired with, in every mode. */
import type {} from '@fastify/cookie'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { isHttps } from '../request-scheme.js'

/** The session cookie's name. */
export const SESSION_COOKIE = 'session'

/** The cookie's attributes; `maxAge` in seconds. */
export function cookieOptions(request: FastifyRequest) {
  return { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: isHttps(request) }
}

export function expireCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.setCookie(SESSION_COOKIE, '', { ...cookieOptions(request), expires: new Date(0), maxAge: 0 })
}
