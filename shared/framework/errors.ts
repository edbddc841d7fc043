/**
 * Errors both sides understand. Expected outcomes a loader may throw (not found,
 * redirect) are marked values with `isX` checks, so they survive bundling and realm
 * boundaries where `instanceof` would not. `HttpError` carries a status and whether
 * its message may be shown to the user; anything else is unexpected: a 500 with a digest.
 */
import { IDENTITY_CHANGED_CODE } from './identity.js'

/**
 * Every error code an answer may carry, from one registry: the `code` of an `/api`
 * error body and of a JSON refusal of a form post, and what the server logs.
 */
export const ErrorCode = {
  NOT_FOUND: 'APP_ERR_NOT_FOUND',
  REDIRECT: 'APP_ERR_REDIRECT',
  HTTP: 'APP_ERR_HTTP',
  INTERNAL: 'APP_ERR_INTERNAL',
  /** A guard of an /api route wants the client signed in first: 401. */
  UNAUTHORIZED: 'APP_ERR_UNAUTHORIZED',
  /** The request target is no path, or its percent-encoding is malformed. */
  BAD_URL: 'APP_ERR_BAD_URL',
  /** The request is malformed in a way the other codes do not name. */
  BAD_REQUEST: 'APP_ERR_BAD_REQUEST',
  /** The Host header (or an absolute-form target's host) is missing its value, malformed, or sent twice. */
  BAD_HOST: 'APP_ERR_BAD_HOST',
  /** The Host is not one this server answers (ALLOWED_HOSTS): 421. */
  MISDIRECTED: 'APP_ERR_MISDIRECTED',
  URI_TOO_LONG: 'APP_ERR_URI_TOO_LONG',
  /** An `Expect` other than `100-continue`, the one expectation this server meets: 417. */
  EXPECTATION_FAILED: 'APP_ERR_EXPECTATION_FAILED',
  HEADERS_TOO_LARGE: 'APP_ERR_HEADERS_TOO_LARGE',
  TIMEOUT: 'APP_ERR_TIMEOUT',
  BODY_TOO_LARGE: 'APP_ERR_BODY_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE: 'APP_ERR_UNSUPPORTED_MEDIA_TYPE',
  BAD_JSON: 'APP_ERR_BAD_JSON',
  VALIDATION: 'APP_ERR_VALIDATION',
  METHOD_NOT_ALLOWED: 'APP_ERR_METHOD_NOT_ALLOWED',
  CROSS_ORIGIN: 'APP_ERR_CROSS_ORIGIN',
  NO_ACTION: 'APP_ERR_NO_ACTION',
  UNKNOWN_ACTION: 'APP_ERR_UNKNOWN_ACTION',
  /** A multipart form that cannot be parsed: no boundary, cut short, a malformed part. */
  BAD_MULTIPART: 'APP_ERR_BAD_MULTIPART',
  /** A multipart form with more parts or fields than a form may have: 413. */
  TOO_MANY_PARTS: 'APP_ERR_TOO_MANY_PARTS',
  /** A file with a name and no bytes: 400 (an empty file input sends no name, and is no file). */
  EMPTY_FILE: 'APP_ERR_EMPTY_FILE',
  /** A file for a field the action does not declare as a file field, or a second file for one. */
  UNDECLARED_FILE: 'APP_ERR_UNDECLARED_FILE',
  /** An asset path that steps out of the assets folder (`..`) or names a dotfile: 403. */
  FORBIDDEN_PATH: 'APP_ERR_FORBIDDEN_PATH',
  /** A Range that starts past the end of the asset: 416, with `Content-Range: bytes *\/<length>`. */
  RANGE_NOT_SATISFIABLE: 'APP_ERR_RANGE_NOT_SATISFIABLE',
  DRAINING: 'APP_ERR_DRAINING',
  /** The instance is shedding load (its event loop is behind): 503 with `Retry-After`, at once, before any work. */
  OVERLOADED: 'APP_ERR_OVERLOADED',
  /** More requests from one client address than its budget allows (form posts, the monitoring tunnel): 429. */
  RATE_LIMITED: 'APP_ERR_RATE_LIMITED',
  /** The session store (Redis) did not answer: 503 with `Retry-After`, for a request that carries or starts a session. */
  SESSIONS_UNAVAILABLE: 'APP_ERR_SESSIONS_UNAVAILABLE',
  /** A form rendered for one sign-in, posted after another (or a sign-out) in any tab: 409, nothing done. */
  IDENTITY_CHANGED: IDENTITY_CHANGED_CODE,
} as const
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode]

const KIND = Symbol.for('app.error-kind')

export type RedirectStatus = 301 | 302 | 303 | 307 | 308
const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308])

export interface NotFoundError extends Error {
  readonly [KIND]: 'not-found'
  readonly code: typeof ErrorCode.NOT_FOUND
  readonly status: 404
}

export interface RedirectError extends Error {
  readonly [KIND]: 'redirect'
  readonly code: typeof ErrorCode.REDIRECT
  readonly status: RedirectStatus
  readonly location: string
}

/** Throw from a loader: the page answers 404 with the not-found page. */
export function notFound(message = 'Not found'): NotFoundError {
  return Object.assign(new Error(message), {
    [KIND]: 'not-found' as const,
    code: ErrorCode.NOT_FOUND,
    status: 404 as const,
  })
}

/**
 * Throw from a loader: the page answers `status` with `Location: to`. `to` must be a
 * same-site path (`isSameSitePath`), so a loader fed user input cannot become an open
 * redirect.
 */
export function redirect(to: string, status: RedirectStatus = 302): RedirectError {
  if (!isSameSitePath(to)) {
    throw new TypeError(`redirect() takes a path on this site, got ${JSON.stringify(to)}`)
  }
  if (!REDIRECT_STATUSES.has(status)) {
    throw new TypeError(`redirect() status must be one of 301, 302, 303, 307, 308, got ${status}`)
  }
  return Object.assign(new Error(`Redirect to ${to}`), {
    [KIND]: 'redirect' as const,
    code: ErrorCode.REDIRECT,
    status,
    location: to,
  })
}

/**
 * True when `to` is a path on this site that no browser reads as another host: it
 * starts with one `/`, holds no backslash (browsers read `/\host` as `//host`) and no
 * control character (they drop tabs and newlines, so `/\t/host` is `//host` too).
 */
export function isSameSitePath(to: string): boolean {
  return to.startsWith('/') && !to.startsWith('//') && !/[\\\x00-\x1f\x7f]/.test(to)
}

export function isNotFound(error: unknown): error is NotFoundError {
  return typeof error === 'object' && error !== null && (error as { [KIND]?: unknown })[KIND] === 'not-found'
}

export function isRedirect(error: unknown): error is RedirectError {
  return typeof error === 'object' && error !== null && (error as { [KIND]?: unknown })[KIND] === 'redirect'
}

/**
 * An error with an HTTP status. `expose` says whether its message may reach the user;
 * it defaults to true below 500 and is always false from 500 up.
 */
export class HttpError extends Error {
  readonly code = ErrorCode.HTTP
  readonly status: number
  readonly expose: boolean

  constructor(status: number, message: string, options?: { expose?: boolean; cause?: unknown }) {
    super(message, { cause: options?.cause })
    if (!Number.isInteger(status) || status < 400 || status > 599) {
      throw new TypeError(`HttpError status must be 400-599, got ${status}`)
    }
    this.name = 'HttpError'
    this.status = status
    this.expose = status < 500 && (options?.expose ?? true)
  }
}

export function isHttpError(error: unknown): error is HttpError {
  return error instanceof HttpError
}
