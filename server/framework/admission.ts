/**
 * The first hook on every request, for what every answer carries and what every request
 * must pass before anything else looks at it: the request id; once the instance has
 * stopped accepting, `Connection: close`, so the connections a proxy still holds end
 * after their request (server/framework/run-server.ts); one Host, and one this server
 * answers; no expectation but 100-continue. Errors from here go out before the
 * security plugin's hook has run: they carry its fixed headers.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { originForm, splitTarget, targetAuthority } from '../../shared/framework/location.js'
import type { HostPolicy } from './allowed-hosts.js'
import { errors, type ClientError } from './error-registry.js'
import { REQUEST_ID_HEADER, type ErrorResponses } from './error-responses.js'
import { isHttps } from './request-scheme.js'

/** Readiness and liveness probes: answered whatever Host they name (a Kubernetes probe names the pod's address). */
const PROBE_PATHS: ReadonlySet<string> = new Set(['/api/health', '/api/ready'])

export function admitRequest(hosts: HostPolicy, errorResponses: ErrorResponses) {
  const refuseEarly = (request: FastifyRequest, reply: FastifyReply, error: ClientError) =>
    errorResponses.send(request, reply, error, { hooksRan: false })
  return async function admitRequest(request: FastifyRequest, reply: FastifyReply) {
    reply.header(REQUEST_ID_HEADER, request.id)
    if (request.server.lifecycle.closing) reply.header('connection', 'close')
    if (hasDuplicateHost(request.raw.rawHeaders)) {
      return refuseEarly(request, reply, errors.HOST_TWICE())
    }
    const sentHost = request.raw.headers.host
    if (sentHost === undefined && request.raw.httpVersion !== '1.0') {
      return refuseEarly(request, reply, errors.HOST_MISSING())
    }
    // What the request names: a trusted proxy's X-Forwarded-Host, else Host ('' for
    // none, which only HTTP/1.0 may send, and which names nothing to refuse).
    const named = request.host
    const verdict = named === '' && sentHost === undefined ? 'allowed' : hosts.check(named, isHttps(request))
    if (verdict === 'malformed') {
      return refuseEarly(request, reply, errors.HOST_MALFORMED())
    }
    // An absolute-form target (`GET http://host/x`) names a host of its own, which HTTP
    // says wins over Host (RFC 9112, 3.2.2). From here on it is the request's Host, for
    // the check below and for every later reader (the same-origin check of forms), and
    // the target is in origin form, as everything after reads it (@fastify/static
    // finds no file under an absolute target). A trusted proxy's X-Forwarded-Host
    // still names the host, and is checked.
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
    // HTTP/1.1 defines one expectation, 100-continue (met when the body is read, above); any other is
    // refused here, with what every answer carries, rather than by Node's bare 417
    // (the server's 'checkExpectation' listener hands such a request over).
    const expect = request.headers.expect
    if (expect !== undefined && request.raw.httpVersion === '1.1' && !CONTINUE_EXPECTATION.test(expect)) {
      return refuseEarly(request, reply, errors.EXPECTATION_FAILED())
    }
  }
}

/** What Node takes for `Expect: 100-continue` (its own test, so the two never disagree). */
const CONTINUE_EXPECTATION = /(?:^|\W)100-continue(?:$|\W)/i

/** True when the request carries Host more than once (Node keeps only the first). */
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
