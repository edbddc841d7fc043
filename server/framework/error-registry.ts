/**
 * Every client error the framework sends, in one table (docs/architecture.md, "Errors"). The `code`
 * is what clients read and must not change. `%s` placeholders keep every sentence a client can get here.
 */
import { ErrorCode } from '../../shared/framework/errors.js'
import { NOT_FOUND_TEXT } from '../../shared/framework/error-texts.js'

export interface ClientError {
  readonly status: number
  readonly code: string
  readonly message: string
}

type Placeholders<M extends string> = M extends `${string}%s${infer Rest}` ? [string | number, ...Placeholders<Rest>] : []

/** Called with one argument per `%s`. */
export interface ErrorEntry<M extends string = string> {
  (...args: Placeholders<M>): ClientError
  readonly code: ErrorCode
  readonly status: number
  readonly message: M
}

export function createError<const M extends string>(code: ErrorCode, message: M, status: number): ErrorEntry<M> {
  const entry = (...args: Array<string | number>): ClientError => {
    let i = 0
    return { status, code, message: message.replace(/%s/g, () => String(args[i++])) }
  }
  return Object.assign(entry, { code, status, message }) as unknown as ErrorEntry<M>
}

/**
 * For where only an error can go (a body parser's `done`): answered at its own status, 5xx included,
 * and never reported as a server error (the sessions' 503 has its own throttled warning).
 */
export class AppError extends Error {
  readonly statusCode: number
  readonly code: string
  constructor(readonly clientError: ClientError) {
    super(clientError.message)
    this.name = 'AppError'
    this.statusCode = clientError.status
    this.code = clientError.code
  }
}

const E = ErrorCode
const FORM_TYPE = 'application/x-www-form-urlencoded'

export const errors = {
  // Not found: one wording per kind of response.
  PAGE_NOT_FOUND: createError(E.NOT_FOUND, NOT_FOUND_TEXT, 404),
  API_NOT_FOUND: createError(E.NOT_FOUND, 'Nothing was found at this address.', 404),
  ASSET_NOT_FOUND: createError(E.NOT_FOUND, 'There is no asset at this address.', 404),
  TUNNEL_NOT_FOUND: createError(E.NOT_FOUND, 'The monitoring tunnel answers at /monitoring only.', 404),

  // Methods.
  PAGE_METHOD: createError(E.METHOD_NOT_ALLOWED, 'This page does not take %s requests (it allows %s).', 405),
  DATA_METHOD: createError(E.METHOD_NOT_ALLOWED, 'Page data is only read: %s is not taken here (it allows GET, HEAD).', 405),
  API_METHOD: createError(E.METHOD_NOT_ALLOWED, 'This API route does not take %s (it allows %s).', 405),
  ASSET_METHOD: createError(E.METHOD_NOT_ALLOWED, 'Assets are only read: %s is not taken here (it allows GET, HEAD).', 405),
  TUNNEL_METHOD: createError(E.METHOD_NOT_ALLOWED, 'The monitoring tunnel only takes POST.', 405),
  NO_ACTIONS: createError(E.METHOD_NOT_ALLOWED, 'This page has no actions to post to.', 405),

  // The request as HTTP: Node's parser, Fastify before routing, the host check.
  MALFORMED_URL: createError(E.BAD_URL, 'The address is malformed: a path starts with / and its percent-encoding is valid UTF-8.', 400),
  URI_TOO_LONG: createError(E.URI_TOO_LONG, 'The address is too long.', 414),
  NOT_HTTP: createError(E.BAD_REQUEST, 'The request is not valid HTTP.', 400),
  BODY_CUT_SHORT: createError(E.BAD_REQUEST, 'The request ended before its whole body arrived.', 400),
  HEADERS_TOO_LARGE: createError(E.HEADERS_TOO_LARGE, 'The request headers are larger than this server accepts.', 431),
  REQUEST_TIMEOUT: createError(E.TIMEOUT, 'The request did not arrive in time.', 408),
  CONNECT: createError(E.BAD_REQUEST, 'This server is not a proxy: it does not take CONNECT.', 400),
  HOST_TWICE: createError(E.BAD_HOST, 'The request has more than one Host header.', 400),
  HOST_MISSING: createError(E.BAD_HOST, 'The request has no Host header.', 400),
  HOST_MALFORMED: createError(E.BAD_HOST, 'The Host header is not a host name.', 400),
  TARGET_HOST_MALFORMED: createError(E.BAD_HOST, 'The host in the request target is not a host name.', 400),
  MISDIRECTED: createError(E.MISDIRECTED, 'This server does not answer for the host name in the request (see ALLOWED_HOSTS).', 421),
  EXPECTATION_FAILED: createError(E.EXPECTATION_FAILED, 'This server meets no expectation but Expect: 100-continue.', 417),
  RATE_LIMITED: createError(E.RATE_LIMITED, 'Too many requests from this address: try again in %s.', 429),

  // Request bodies.
  BODY_TOO_LARGE: createError(E.BODY_TOO_LARGE, 'The request body is larger than this address accepts.', 413),
  UNSUPPORTED_MEDIA_TYPE: createError(E.UNSUPPORTED_MEDIA_TYPE, 'This address does not accept the content type of the request body.', 415),
  BAD_CONTENT_LENGTH: createError(E.BAD_REQUEST, 'The request body does not match its Content-Length.', 400),
  BAD_JSON: createError(E.BAD_JSON, 'The request body is not valid JSON.', 400),
  EMPTY_JSON: createError(E.BAD_JSON, 'The request body is empty, but its content type says JSON.', 400),
  JSON_NOT_UTF8: createError(E.BAD_JSON, 'The request body is not valid UTF-8.', 400),
  JSON_CHARSET: createError(E.UNSUPPORTED_MEDIA_TYPE, 'A JSON body must be UTF-8: its Content-Type names another charset.', 415),
  POISONED_JSON: createError(E.BAD_JSON, 'The JSON body has a "__proto__" or "constructor.prototype" key, which is refused.', 400),
  VALIDATION: createError(E.VALIDATION, '%s', 400),

  // /api.
  SIGN_IN_REQUIRED: createError(E.UNAUTHORIZED, 'Sign in to use this route.', 401),

  // Form posts.
  NO_ORIGIN: createError(E.CROSS_ORIGIN, 'Form posts must carry an Origin or Referer header; this one has neither.', 403),
  OPAQUE_ORIGIN: createError(E.CROSS_ORIGIN, 'Form posts from an opaque or malformed origin are refused.', 403),
  CROSS_ORIGIN: createError(E.CROSS_ORIGIN, 'Form posts from another origin are refused: only this site and the allowed origins may post here.', 403),
  FORM_TOO_LARGE: createError(E.BODY_TOO_LARGE, 'Forms may be at most %s bytes.', 413),
  FORM_NOT_URLENCODED: createError(E.UNSUPPORTED_MEDIA_TYPE, `Forms must be sent as ${FORM_TYPE}.`, 415),
  FORM_CHARSET: createError(E.UNSUPPORTED_MEDIA_TYPE, 'Forms must be sent in UTF-8, not %s.', 415),
  IDENTITY_CHANGED: createError(E.IDENTITY_CHANGED, 'You signed in or out in another tab since this form was shown, so it was not sent.', 409),
  NO_ACTION: createError(E.NO_ACTION, 'The form names no action (its %s field is missing).', 400),
  ACTION_BEFORE_FILES: createError(E.NO_ACTION, 'The form must name its action (its %s field) before its files.', 400),
  UNKNOWN_ACTION: createError(E.UNKNOWN_ACTION, 'This page has no action named %s.', 404),
  ACTION_TAKES_NO_FILES: createError(E.UNSUPPORTED_MEDIA_TYPE, `This action takes no files: its form must be sent as ${FORM_TYPE}.`, 415),

  // Forms with files.
  MULTIPART_MALFORMED: createError(E.BAD_MULTIPART, 'The multipart form is malformed or incomplete.', 400),
  MULTIPART_FIELD_NAME: createError(E.BAD_MULTIPART, 'The form has a field whose name is not allowed.', 400),
  MULTIPART_FIELD_NOT_TEXT: createError(E.BAD_MULTIPART, 'Form fields must be plain text.', 400),
  FILE_WITHOUT_NAME: createError(E.BAD_MULTIPART, 'The file for %s has no file name.', 400),
  TOO_MANY_PARTS: createError(E.TOO_MANY_PARTS, 'A form may have at most %s parts.', 413),
  TOO_MANY_FIELDS: createError(E.TOO_MANY_PARTS, 'A form may have at most %s text fields.', 413),
  TOO_MANY_FILES: createError(E.TOO_MANY_PARTS, 'A form may have at most %s files.', 413),
  FORM_WITH_FILES_TOO_LARGE: createError(E.BODY_TOO_LARGE, 'A form with files may be at most %s (%s bytes) in all.', 413),
  FORM_TEXT_TOO_LARGE: createError(E.BODY_TOO_LARGE, 'The text of a form may be at most %s bytes.', 413),
  FILE_TOO_LARGE: createError(E.BODY_TOO_LARGE, 'The file for "%s" may be at most %s (%s bytes).', 413),
  FILE_WRONG_TYPE: createError(E.UNSUPPORTED_MEDIA_TYPE, 'The file for "%s" must be a %s file (%s).', 415),
  EMPTY_FILE: createError(E.EMPTY_FILE, 'The file for "%s" is empty.', 400),
  UNDECLARED_FILE: createError(E.UNDECLARED_FILE, 'This form takes no file named %s.', 400),
  FILE_TWICE: createError(E.UNDECLARED_FILE, 'This form takes one file for %s, not several.', 400),

  // Assets (what @fastify/static's `send` refuses).
  ASSET_NUL_BYTE: createError(E.BAD_URL, 'An asset path cannot contain a NUL byte (%00).', 400),
  ASSET_OUTSIDE: createError(E.FORBIDDEN_PATH, 'An asset path cannot step out of the assets folder (..) or name a dotfile.', 403),
  // `send` answers 416 to a malformed range (`bytes=abc`, `bytes=5-2`) too.
  ASSET_RANGE: createError(
    E.RANGE_NOT_SATISFIABLE,
    'The requested range is malformed or starts past the end of the asset (its length is in Content-Range).',
    416,
  ),

  // Stored files (uploads/private-files.ts): a malformed range gets the whole file instead.
  FILE_RANGE: createError(E.RANGE_NOT_SATISFIABLE, 'The range asked for starts past the end of the file (its length is in Content-Range).', 416),

  // The monitoring tunnel.
  TUNNEL_BODY_TOO_LARGE: createError(E.BAD_REQUEST, 'Envelopes may be at most %s bytes.', 413),
  TUNNEL_PARAMETERS: createError(E.BAD_REQUEST, 'Tunnel URLs take only the parameters o, p and r.', 400),
  TUNNEL_ORG: createError(E.BAD_REQUEST, 'Tunnel parameter "o" must be the organisation id (digits).', 400),
  TUNNEL_PROJECT: createError(E.BAD_REQUEST, 'Tunnel parameter "p" must be the project id (digits).', 400),
  TUNNEL_REGION: createError(E.BAD_REQUEST, 'Tunnel parameter "r" must be a region of two lowercase letters.', 400),
  TUNNEL_NOT_ALLOWED: createError(E.BAD_REQUEST, 'The tunnel does not forward to this project.', 403),
  ENVELOPE_EMPTY: createError(E.BAD_REQUEST, 'The envelope is empty.', 400),
  ENVELOPE_CODING: createError(E.BAD_REQUEST, 'Envelopes may be gzip-encoded or plain.', 415),
  ENVELOPE_HEADER_TOO_LONG: createError(E.BAD_REQUEST, 'The envelope header line is over 64 KiB.', 400),
  ENVELOPE_NOT_GZIP: createError(E.BAD_REQUEST, 'The body is not valid gzip.', 400),
  ENVELOPE_HEADER_NOT_JSON: createError(E.BAD_REQUEST, 'The envelope header is not JSON.', 400),
  ENVELOPE_NO_DSN: createError(E.BAD_REQUEST, 'The envelope header names no DSN.', 400),
  ENVELOPE_OTHER_DSN: createError(E.BAD_REQUEST, "The envelope's DSN is not the allowed DSN the tunnel URL names.", 403),
  INGEST_TIMEOUT: createError(E.HTTP, 'Sentry ingest did not answer in time.', 504),
  INGEST_UNREACHABLE: createError(E.HTTP, 'Sentry ingest is unreachable.', 502),
  INGEST_REDIRECT: createError(E.HTTP, 'Sentry ingest answered with a redirect, which the tunnel does not follow.', 502),
  TUNNEL_FAILED: createError(E.HTTP, 'The tunnel failed.', 500),

  // The server itself.
  SESSIONS_UNAVAILABLE: createError(E.SESSIONS_UNAVAILABLE, 'Sessions are unavailable for a moment; try again shortly.', 503),
  DRAINING: createError(E.DRAINING, 'This instance is shutting down', 503),
  OVERLOADED: createError(E.OVERLOADED, 'The server is busy; try again in a few seconds.', 503),
  INTERNAL: createError(E.INTERNAL, 'Internal server error', 500),
} as const
