/**
 * The one classifier of thrown values (docs/architecture.md, "Errors"). A server error is logged and
 * reported here, once, so its digest, log line and report always agree.
 */
import type { FastifyRequest } from 'fastify'
import { digestOf } from '../../shared/framework/digest.js'
import { REFUSAL_TEXT } from '../../shared/framework/error-texts.js'
import { ErrorCode, isHttpError, isNotFound, isRedirect, type RedirectStatus } from '../../shared/framework/errors.js'
import { ACTION_BODY_LIMIT, TUNNEL_BODY_LIMIT } from './body-limits.js'
import { AppError, errors, type ClientError } from './error-registry.js'
import { reportServerError, type FailureContext } from './monitoring/error-reporter.js'
import { requestKindOf, type RequestKind } from './request-kinds.js'

export type Failure =
  | { readonly type: 'redirect'; readonly status: RedirectStatus; readonly location: string }
  | { readonly type: 'not-found' }
  /** `exposed: false`: the thrower's message was not for the user, and REFUSAL_TEXT stands in. */
  | { readonly type: 'client-error'; readonly error: ClientError; readonly exposed: boolean }
  /** `thrown` is for development's overlay only: never sent in production. */
  | { readonly type: 'server-error'; readonly status: number; readonly digest: string; readonly thrown: unknown }

export type ServerError = Extract<Failure, { type: 'server-error' }>

export type FailureSource = Omit<FailureContext, 'digest'>

/**
 * Who threw it: `framework` for what reaches the error handler (Fastify's errors, a plugin's, an /api
 * handler's), whose `statusCode` is believed; `page` for a page's loaders and guards and for actions,
 * where only our own errors (`HttpError`, `AppError`, `redirect()`, `notFound()`) say their status.
 * A library's error about its own upstream call (a 401 from a payment API) is then a server error,
 * reported, not the visitor's fault.
 */
export type ThrownBy = 'framework' | 'page'

/** `message` is the log line of a server error. The request's kind picks the words: a form's limit is not the tunnel's. */
export function classify(
  request: FastifyRequest,
  error: unknown,
  message: string,
  source: FailureSource = {},
  thrownBy: ThrownBy = 'framework',
): Failure {
  if (isRedirect(error)) return { type: 'redirect', status: error.status, location: error.location }
  if (isNotFound(error)) return { type: 'not-found' }
  if (error instanceof AppError) return { type: 'client-error', error: error.clientError, exposed: true }
  if (thrownBy === 'page' && !isHttpError(error)) return serverError(request, error, message, source)
  const status = statusOf(error)
  if (status < 500) return clientErrorOf(error as ThrownError, status, requestKindOf(request))
  return serverError(request, error, message, source)
}

export function serverError(request: FastifyRequest, error: unknown, message: string, source: FailureSource = {}): ServerError {
  const digest = digestOf(error)
  reportServerError(request, error, message, { ...source, digest })
  return { type: 'server-error', status: Math.max(statusOf(error), 500), digest, thrown: error }
}

/** React's `onError` hands the digest to the page first. */
export function reportWithDigest(request: FastifyRequest, error: unknown, message: string, digest: string, source: FailureSource = {}): void {
  reportServerError(request, error, message, { ...source, digest })
}

interface ThrownError {
  readonly code?: string
  readonly validation?: unknown
  readonly message: string
}

export function statusOf(error: unknown): number {
  if (typeof error !== 'object' || error === null) return 500
  const { statusCode, status } = error as { statusCode?: unknown; status?: unknown }
  const found = typeof statusCode === 'number' ? statusCode : isHttpError(error) ? status : undefined
  return typeof found === 'number' && found >= 400 && found < 600 ? found : 500
}

/** Fastify's own messages can quote the request (the URL, a header): each code it raises gets ours. */
const FASTIFY_ERRORS: Readonly<Record<string, ClientError>> = {
  FST_ERR_BAD_URL: errors.MALFORMED_URL(),
  FST_ERR_MAX_PARAM_LENGTH: errors.URI_TOO_LONG(),
  FST_ERR_CTP_BODY_TOO_LARGE: errors.BODY_TOO_LARGE(),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: errors.UNSUPPORTED_MEDIA_TYPE(),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: errors.BAD_CONTENT_LENGTH(),
  FST_ERR_CTP_EMPTY_JSON_BODY: errors.EMPTY_JSON(),
  FST_ERR_CTP_INVALID_JSON_BODY: errors.BAD_JSON(),
}

/** The same codes where a kind of request words them its own way. */
const FASTIFY_ERRORS_BY_KIND: Partial<Record<RequestKind, Readonly<Record<string, ClientError>>>> = {
  action: {
    FST_ERR_CTP_BODY_TOO_LARGE: errors.FORM_TOO_LARGE(ACTION_BODY_LIMIT),
    FST_ERR_CTP_INVALID_MEDIA_TYPE: errors.FORM_NOT_URLENCODED(),
    FST_ERR_CTP_INVALID_CONTENT_LENGTH: errors.FORM_NOT_URLENCODED(),
  },
  monitoring: { FST_ERR_CTP_BODY_TOO_LARGE: errors.TUNNEL_BODY_TOO_LARGE(TUNNEL_BODY_LIMIT) },
}

/** @fastify/static's `send` errors have no code. */
const ASSET_ERRORS: Readonly<Record<number, ClientError>> = {
  // The router refuses malformed percent-encoding first: `send`'s 400 is a NUL byte.
  400: errors.ASSET_NUL_BYTE(),
  403: errors.ASSET_OUTSIDE(),
  416: errors.ASSET_RANGE(),
}

function clientErrorOf(error: ThrownError, status: number, kind: RequestKind): Failure {
  const ours = (clientError: ClientError): Failure => ({ type: 'client-error', error: clientError, exposed: true })
  if (isHttpError(error)) {
    return { type: 'client-error', error: { status, code: error.code, message: error.expose ? error.message : REFUSAL_TEXT }, exposed: error.expose }
  }
  // A schema's message names the field, never the value.
  if (error.validation) return ours({ ...errors.VALIDATION(error.message), status })
  const code = error.code
  if (code === undefined && kind === 'assets' && ASSET_ERRORS[status]) return ours(ASSET_ERRORS[status])
  const known = code !== undefined ? (FASTIFY_ERRORS_BY_KIND[kind]?.[code] ?? FASTIFY_ERRORS[code]) : undefined
  if (known) return ours(known)
  if (error instanceof SyntaxError) return ours(errors.BAD_JSON())
  return { type: 'client-error', error: { status, code: ErrorCode.HTTP, message: REFUSAL_TEXT }, exposed: false }
}
