/**
 * The host check: the first hook on every request, before anything else looks at it (it
 * also sets the request id and refuses an Expect other than 100-continue). Errors from
 * here go out before the security plugin's hook has run: they carry its fixed headers.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { originForm, splitTarget, targetAuthority } from '../../shared/framework/location.js'
import type { HostPolicy } from './allowed-hosts.js'
import { errors, type ClientError } from './error-registry.js'
import { REQUEST_ID_HEADER, type ErrorResponses } from './error-responses.js'
import { isHttps } from './request-scheme.js'

/** Answered whatever Host they name: a Kubernetes probe names the pod's address. */
const PROBE_PATHS: ReadonlySet<string> = new Set(['/api/health', '/api/ready'])

export function checkHost(hosts: HostPolicy, errorResponses: ErrorResponses) {
  const refuseEarly = (request: FastifyRequest, reply: FastifyReply, error: ClientError) =>
    errorResponses.send(request, reply, error, { hooksRan: false })
  return async function checkHost(request: FastifyRequest, reply: FastifyReply) {
    reply.header(REQUEST_ID_HEADER, request.id)
    if (request.server.lifecycle.closing) reply.header('connection', 'close')
    if (hasDuplicateHost(request.raw.rawHeaders)) {
      return refuseEarly(request, reply, errors.HOST_TWICE())
    }
    const sentHost = request.raw.headers.host
    if (sentHost === undefined && request.raw.httpVersion !== '1.0') {
      return refuseEarly(request, reply, errors.HOST_MISSING())
    }
    // '' for no Host, which only HTTP/1.0 may send, and which names nothing to refuse.
    const named = request.host
    const verdict = named === '' && sentHost === undefined ? 'allowed' : hosts.check(named, isHttps(request))
    if (verdict === 'malformed') {
      return refuseEarly(request, reply, errors.HOST_MALFORMED())
    }
    // An absolute-form target (`GET http://host/x`) names a host that wins over Host: it becomes the
    // Host for every later reader, and the target goes to origin form (@fastify/static finds no
    // file under an absolute one).
    const target = request.raw.url ?? '/'
    const authority = targetAuthority(target)
    if (authority !== undefined) {
      if (hosts.check(authority) === 'malformed') {
        return refuseEarly(request, reply, errors.TARGET_HOST_MALFORMED())
      }
      request.raw.headers.host = authority
      request.raw.url = originForm(target)
    }
    const finalVerdict = authority === undefined ? verdict : hosts.check(request.host, isHttps(request))
    if (finalVerdict === 'refused' && !PROBE_PATHS.has(splitTarget(request.url).pathname)) {
      request.log.warn({ host: request.host }, 'request for a host this server does not answer refused')
      return refuseEarly(request, reply, errors.MISDIRECTED())
    }
    // Refused here, with what every answer carries, rather than by Node's bare 417.
    const expect = request.headers.expect
    if (expect !== undefined && request.raw.httpVersion === '1.1' && !CONTINUE_EXPECTATION.test(expect)) {
      return refuseEarly(request, reply, errors.EXPECTATION_FAILED())
    }
  }
}

/** Node's own test, so the two never disagree. */
const CONTINUE_EXPECTATION = /(?:^|\W)100-continue(?:$|\W)/i

/** Node keeps only the first. */
function hasDuplicateHost(rawHeaders: readonly string[]): boolean {
  let seen = false
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!
    if (name.length === 4 && name.toLowerCase() === 'host') {
      if (seen) return true
      seen = true
    }
  }
  return false
}
