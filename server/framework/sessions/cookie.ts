/** The session cookie and the identity cookie beside it: names and the attributes they are set and expired with, in every mode. */
import type {} from '@fastify/cookie'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { IDENTITY_COOKIE } from '../../../shared/framework/identity.js'
import { isHttps } from '../request-scheme.js'

export const SESSION_COOKIE = 'session'

/** The cookie's attributes; `maxAge` in seconds. */
export function cookieOptions(request: FastifyRequest) {
  return { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: isHttps(request) }
}

export function expireCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.setCookie(SESSION_COOKIE, '', { ...cookieOptions(request), expires: new Date(0), maxAge: 0 })
  setIdentityCookie(request, reply, '', 0)
}

/**
 * The identity cookie (shared/framework/identity.ts) follows the session cookie: set
 * with it, for as long, and expired with it. Scripts read it (not `HttpOnly`): it is
 * what tells a tab that another one signed in or out.
 */
export function setIdentityCookie(request: FastifyRequest, reply: FastifyReply, identity: string, maxAge: number): void {
  const options = { ...cookieOptions(request), httpOnly: false }
  if (identity) reply.setCookie(IDENTITY_COOKIE, identity, { ...options, maxAge })
  else if (request.cookies[IDENTITY_COOKIE] !== undefined) reply.setCookie(IDENTITY_COOKIE, '', { ...options, expires: new Date(0), maxAge: 0 })
}
