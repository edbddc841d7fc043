/**
 * How the server says no, in one place. A refusal (a 4xx: a malformed URL, a body
 * Fastify would not parse, a Host this server does not answer, an unknown API route)
 * is answered in the form its surface speaks (server/framework/surfaces.ts), whichever
 * part of the server refused; a fault (./failures.ts decides which is which) likewise,
 * saying only its digest.
 *
 * Every refusal has the security headers (the security plugin's, or the fixed script-less set
 * when Fastify's hooks did not run), the request id, `no-store`, our own code and our
 * own words: never Fastify's message, never the URL that was asked for.
 */
import { randomUUID } from 'node:crypto'
import { STATUS_CODES, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { ErrorCode, isHttpError, isNotFound, isSameSitePath } from '../../shared/framework/errors.js'
import type { Failure } from './failures.js'
import { answerFor, errorBodyFor, surfaceOf, surfaceOfTarget, type SurfaceContext } from './surfaces.js'

/** Cache-Control of every answer that is for this request alone. */
export const NO_STORE = 'private, no-store'

/** The header carrying the request id, in and out. */
export const REQUEST_ID_HEADER = 'x-request-id'

/** A refusal as the client reads it. */
export interface Refusal {
  readonly status: number
  readonly code: string
  readonly message: string
}

/**
 * The `Location` of a redirect (and the `location` of a redirect payload), checked
 * where it is sent and not only where it was made: a path on this site
 * (`isSameSitePath`), with anything outside printable ASCII percent-encoded as UTF-8
 * (a header can carry nothing else). Anything else is a bug in the caller: it throws,
 * and the request is a 500.
 */
export function sameSiteLocation(to: string): string {
  if (!isSameSitePath(to)) throw new TypeError(`Refusing to redirect to ${JSON.stringify(to)}: not a path on this site`)
  return to.replace(/[^\x21-\x7e]/gu, (char) => encodeURIComponent(char))
}

/** What `throw notFound()` answers where no not-found page is rendered. */
const NOT_FOUND: Refusal = { status: 404, code: ErrorCode.NOT_FOUND, message: 'Nothing was found at this address.' }

/** A request target that is no path (`*`) or whose percent-encoding is malformed (`/%zz`, `/%E0%A4%A`, `/99%`). */
export const MALFORMED_URL: Refusal = {
  status: 400,
  code: ErrorCode.BAD_URL,
  message: 'The address is malformed: a path starts with / and its percent-encoding is valid UTF-8.',
}

/**
 * A method this address does not take: 405 with `Allow`, in our words (`message`);
 * OPTIONS asks which ones it takes, and gets 204 with the same `Allow`.
 */
export function refuseMethod(request: FastifyRequest, reply: FastifyReply, allow: string, message: string): FastifyReply {
  reply.header('allow', allow)
  if (request.method === 'OPTIONS') return reply.header('cache-control', NO_STORE).code(204).send()
  return request.server.refusals.send(request, reply, { status: 405, code: ErrorCode.METHOD_NOT_ALLOWED, message })
}

/** A refusal thrown where only an error can go (a body parser's `done`): answered as it says. */
export class RefusalError extends Error {
  readonly statusCode: number
  constructor(readonly refusal: Refusal) {
    super(refusal.message)
    this.name = 'RefusalError'
    this.statusCode = refusal.status
  }
}

/** The status an error answers with: its own when it is an HTTP error status, else 500. */
export function statusOf(error: { readonly statusCode?: number; readonly status?: number }): number {
  const status = error.statusCode ?? (isHttpError(error) || isNotFound(error) ? error.status : undefined)
  return status !== undefined && status >= 400 && status < 600 ? status : 500
}

/** The JSON schema of that body, for the `response` schemas of /api routes. */
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

/** The JSON error body of `/api` and of form posts sent by scripts. */
export function errorBody(request: FastifyRequest, code: string, message: string, digest?: string) {
  return errorBodyFor(String(request.id), code, message, digest)
}

export const BAD_JSON: Refusal = { status: 400, code: ErrorCode.BAD_JSON, message: 'The request body is not valid JSON.' }
export const EMPTY_JSON: Refusal = { status: 400, code: ErrorCode.BAD_JSON, message: 'The request body is empty, but its content type says JSON.' }

/** What Fastify refuses, by its error code, in our words. */
const FASTIFY_REFUSALS: Readonly<Record<string, Refusal>> = {
  FST_ERR_BAD_URL: MALFORMED_URL,
  FST_ERR_MAX_PARAM_LENGTH: { status: 414, code: ErrorCode.URI_TOO_LONG, message: 'The address is too long.' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: ErrorCode.BODY_TOO_LARGE, message: 'The request body is larger than this address accepts.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    code: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    message: 'This address does not accept the content type of the request body.',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: ErrorCode.BAD_REQUEST, message: 'The request body does not match its Content-Length.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: EMPTY_JSON,
  FST_ERR_CTP_INVALID_JSON_BODY: BAD_JSON,
}

/**
 * An error below 500 in our words. Fastify's own messages can quote the request (the
 * URL, a header), so each kind it raises gets a fixed message here; a schema
 * validation failure keeps its message, which names the field; an `HttpError` meant
 * for the user keeps its own.
 */
export function refusalOf(error: FastifyError): Refusal {
  if (error instanceof RefusalError) return error.refusal
  // `throw notFound()` outside a page (an /api route): its message may be internal, not sent.
  if (isNotFound(error)) return NOT_FOUND
  const status = statusOf(error)
  if (isHttpError(error)) {
    return { status, code: error.code, message: error.expose ? error.message : (STATUS_CODES[status] ?? 'Refused') }
  }
  if (error.validation) return { status, code: ErrorCode.VALIDATION, message: error.message }
  // Made by server/framework/plugins/rate-limit.ts, in our words: when to try again.
  if (error.code === ErrorCode.RATE_LIMITED) return { status: 429, code: ErrorCode.RATE_LIMITED, message: error.message }
  const known = error.code ? FASTIFY_REFUSALS[error.code] : undefined
  if (known) return known
  if (error instanceof SyntaxError) return BAD_JSON
  return { status, code: ErrorCode.HTTP, message: STATUS_CODES[status] ?? 'The request was refused.' }
}

/** What refusals need to know of the client build, and the headers of an answer sent outside the hooks. */
export interface RefusalContext extends SurfaceContext {
  /** The security headers of an answer without scripts (server/framework/security-headers.ts), for those sent outside the hooks. */
  readonly securityHeaders: Readonly<Record<string, string>>
}

export interface Refusals {
  /**
   * Answers a refusal in the form of the request's surface. `hooksRan: false` for a
   * request Fastify refused before routing, whose security headers must be set here.
   */
  send(request: FastifyRequest, reply: FastifyReply, refusal: Refusal, options?: { readonly hooksRan?: boolean }): FastifyReply
  /** Answers a decided failure (./failures.ts) in the form of the request's surface: a refusal, or a fault's digest. */
  sendFailure(request: FastifyRequest, reply: FastifyReply, failure: Failure): FastifyReply
  /**
   * Writes a refusal straight to a socket whose request Node could not parse (431, 400,
   * 408), then closes it; returns the answer's request id (undefined when nothing could
   * be written: the socket is gone, or a response is already under way on it).
   */
  writeToSocket(socket: Duplex, rawRequest: Buffer | undefined, refusal: Refusal): string | undefined
}

export function createRefusals(context: RefusalContext): Refusals {
  return {
    send(request, reply, refusal, { hooksRan = true } = {}) {
      const answer = answerFor(context, surfaceOf(request), refusal, String(request.id))
      if (!hooksRan) reply.headers(context.securityHeaders).header(REQUEST_ID_HEADER, request.id)
      return reply.code(refusal.status).header('cache-control', NO_STORE).type(answer.type).send(answer.body)
    },
    sendFailure(request, reply, failure) {
      if (failure.refusal) return this.send(request, reply, failure.refusal)
      const answer = answerFor(context, surfaceOf(request), failure.fault, String(request.id))
      return reply.code(failure.fault.status).header('cache-control', NO_STORE).type(answer.type).send(answer.body)
    },
    writeToSocket(socket, rawRequest, refusal) {
      const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage
      // A request before the bad bytes, received whole, is still being answered (bytes
      // after a request that said `Connection: close`, a body longer than its
      // Content-Length): that answer goes out, then the connection ends. Ours written
      // now would come first, as the answer to that request.
      if (inFlight?.req.complete && socket.writable) {
        inFlight.once('close', () => socket.end())
        return undefined
      }
      // A response already started on this connection: writing another into it would
      // corrupt it, so the connection just ends.
      if (!socket.writable || inFlight?.headersSent) {
        socket.destroy()
        return undefined
      }
      // The request line, if it arrived, says which surface was asked.
      const target = rawRequest ? (/^[A-Z]+ (\S+)/.exec(rawRequest.subarray(0, 8192).toString('latin1'))?.[1] ?? '/') : '/'
      const requestId = randomUUID()
      const answer = answerFor(context, surfaceOfTarget(target), refusal, requestId)
      const headers = {
        ...context.securityHeaders,
        'content-type': answer.type,
        'content-length': String(Buffer.byteLength(answer.body)),
        'cache-control': NO_STORE,
        [REQUEST_ID_HEADER]: requestId,
        connection: 'close',
      }
      const head = Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('')
      socket.end(`HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n${head}\r\n${answer.body}`, () => socket.destroy())
      return requestId
    },
  }
}

/** What Node's parser refused, by its error code; anything else it refuses is a 400. */
const PARSER_REFUSALS: Readonly<Record<string, Refusal>> = {
  HPE_HEADER_OVERFLOW: { status: 431, code: ErrorCode.HEADERS_TOO_LARGE, message: 'The request headers are larger than this server accepts.' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: ErrorCode.TIMEOUT, message: 'The request did not arrive in time.' },
  // The client stopped sending (a half-close) before the body its headers announced.
  HPE_INVALID_EOF_STATE: { status: 400, code: ErrorCode.BAD_REQUEST, message: 'The request ended before its whole body arrived.' },
}

/** What Node's parser refused, as a refusal; undefined for a connection that just went away. */
export function clientErrorRefusal(error: { readonly code?: string }): Refusal | undefined {
  if (error.code === 'ECONNRESET') return undefined
  return (
    (error.code ? PARSER_REFUSALS[error.code] : undefined) ?? { status: 400, code: ErrorCode.BAD_REQUEST, message: 'The request is not valid HTTP.' }
  )
}
