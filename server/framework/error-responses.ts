/**
 * How every error response is sent, in the form of the request's kind: with security headers even
 * when Fastify's hooks did not run, and our words, never Fastify's message nor the URL asked for.
 */
import { randomUUID } from 'node:crypto'
import { STATUS_CODES, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { isSameSitePath } from '../../shared/framework/errors.js'
import type { NotFoundPayload, RedirectPayload } from '../../shared/framework/page-payload.js'
import { errors, type ClientError } from './error-registry.js'
import type { Failure } from './failures.js'
import { errorBodyFor, errorBodyOf, notFoundFor, requestKindOf, requestKindOfTarget, type BuildFacts } from './request-kinds.js'

export const NO_STORE = 'private, no-store'

export const REQUEST_ID_HEADER = 'x-request-id'

/**
 * Checked where it is sent, not only where it was made: anything but a path on this site is a bug
 * in the caller, a 500. A header carries printable ASCII only, so the rest is percent-encoded.
 */
export function sameSiteLocation(to: string): string {
  if (!isSameSitePath(to)) throw new TypeError(`Refusing to redirect to ${JSON.stringify(to)}: not a path on this site`)
  return to.replace(/[^\x21-\x7e]/gu, (char) => encodeURIComponent(char))
}

/** OPTIONS gets 204 with the same `Allow`. */
export function sendMethodNotAllowed(request: FastifyRequest, reply: FastifyReply, allow: string, error: ClientError): FastifyReply {
  reply.header('allow', allow)
  if (request.method === 'OPTIONS') return reply.header('cache-control', NO_STORE).code(204).send()
  return request.server.errorResponses.send(request, reply, error)
}

/** For the `response` schemas of /api routes. */
export const API_ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'requestId'],
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        requestId: { type: 'string' },
        digest: { type: 'string' },
      },
    },
  },
} as const

export function errorBody(request: FastifyRequest, code: string, message: string, digest?: string) {
  return errorBodyFor(String(request.id), code, message, digest)
}

/** A form post's failure is answered with its page. */
export type FailureRenderer = (request: FastifyRequest, reply: FastifyReply, failure: Failure) => FastifyReply | Promise<FastifyReply>

export interface ErrorResponseContext extends BuildFacts {
  /** For responses sent before the hooks ran. */
  readonly securityHeaders: Readonly<Record<string, string>>
}

export interface ErrorResponses {
  /** `hooksRan: false` for a request refused before routing, whose security headers must be set here. */
  send(request: FastifyRequest, reply: FastifyReply, error: ClientError, options?: { readonly hooksRan?: boolean }): FastifyReply
  sendFailure(
    request: FastifyRequest,
    reply: FastifyReply,
    failure: Failure,
    options?: { readonly hooksRan?: boolean },
  ): FastifyReply | Promise<FastifyReply>
  /** The actions plugin has the page renderer. */
  renderActionsWith(renderer: FailureRenderer): void
  /** For a request Node could not parse; the request id, or undefined when nothing could be written. */
  writeToSocket(socket: Duplex, rawRequest: Buffer | undefined, error: ClientError): string | undefined
}

export function createErrorResponses(context: ErrorResponseContext): ErrorResponses {
  let renderActions: FailureRenderer | undefined
  const responses: ErrorResponses = {
    send(request, reply, error, { hooksRan = true } = {}) {
      const { type, body } = errorBodyOf(context, requestKindOf(request), error, String(request.id))
      if (!hooksRan) reply.headers(context.securityHeaders).header(REQUEST_ID_HEADER, request.id)
      return reply.code(error.status).header('cache-control', NO_STORE).type(type).send(body)
    },
    sendFailure(request, reply, failure, { hooksRan = true } = {}) {
      if (!hooksRan) reply.headers(context.securityHeaders).header(REQUEST_ID_HEADER, request.id)
      const kind = requestKindOf(request)
      if (kind === 'action' && renderActions) return renderActions(request, reply, failure)
      const { buildId } = context
      switch (failure.type) {
        case 'redirect': {
          const location = sameSiteLocation(failure.location)
          reply.header('cache-control', NO_STORE)
          // A fetch would follow a real 3xx itself: page data carries the redirect as data.
          if (kind !== 'data') return reply.redirect(location, failure.status)
          return reply.send({ kind: 'redirect', status: failure.status, location, buildId } satisfies RedirectPayload)
        }
        case 'not-found':
          if (kind !== 'data') return responses.send(request, reply, notFoundFor(kind))
          return reply
            .code(404)
            .header('cache-control', NO_STORE)
            .send({ kind: 'not-found', status: 404, buildId } satisfies NotFoundPayload)
        case 'client-error':
          return responses.send(request, reply, failure.error)
        case 'server-error': {
          const { type, body } = errorBodyOf(context, kind, failure, String(request.id))
          return reply.code(failure.status).header('cache-control', NO_STORE).type(type).send(body)
        }
      }
    },
    renderActionsWith(renderer) {
      renderActions = renderer
    },
    writeToSocket(socket, rawRequest, error) {
      const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage
      // A request before the bad bytes is still being answered: ours written now would come first,
      // as the response to that request.
      if (inFlight?.req.complete && socket.writable) {
        inFlight.once('close', () => socket.end())
        return undefined
      }
      // Writing into a response already started would corrupt it.
      if (!socket.writable || inFlight?.headersSent) {
        socket.destroy()
        return undefined
      }
      const target = rawRequest ? (/^[A-Z]+ (\S+)/.exec(rawRequest.subarray(0, 8192).toString('latin1'))?.[1] ?? '/') : '/'
      const requestId = randomUUID()
      const { type, body } = errorBodyOf(context, requestKindOfTarget(target), error, requestId)
      const headers = {
        ...context.securityHeaders,
        'content-type': type,
        'content-length': String(Buffer.byteLength(body)),
        'cache-control': NO_STORE,
        [REQUEST_ID_HEADER]: requestId,
        connection: 'close',
      }
      const head = Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('')
      socket.end(`HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n${head}\r\n${body}`, () => socket.destroy())
      return requestId
    },
  }
  return responses
}

/** Undefined for a connection that just went away. */
export function parserClientError(error: { readonly code?: string }): ClientError | undefined {
  switch (error.code) {
    case 'ECONNRESET':
      return undefined
    case 'HPE_HEADER_OVERFLOW':
      return errors.HEADERS_TOO_LARGE()
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return errors.REQUEST_TIMEOUT()
    case 'HPE_INVALID_EOF_STATE':
      // The client half-closed before the body its headers announced.
      return errors.BODY_CUT_SHORT()
    default:
      return errors.NOT_HTTP()
  }
}
