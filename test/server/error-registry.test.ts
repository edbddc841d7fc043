/**
 * Every client error the framework sends, with its status, code and words, as one
 * table: a changed sentence or status shows here first. Then the 404, worded once for
 * each kind of response.
 */
import t from 'tap'
import { ErrorCode } from '../../shared/framework/errors.js'
import { errors } from '../../server/framework/error-registry.js'
import { createTestApp } from '../helpers/app.js'

const TABLE: ReadonlyArray<readonly [name: string, status: number, code: string, message: string]> = [
  ['PAGE_NOT_FOUND', 404, 'APP_ERR_NOT_FOUND', 'This page could not be found.'],
  ['API_NOT_FOUND', 404, 'APP_ERR_NOT_FOUND', 'Nothing was found at this address.'],
  ['ASSET_NOT_FOUND', 404, 'APP_ERR_NOT_FOUND', 'There is no asset at this address.'],
  ['TUNNEL_NOT_FOUND', 404, 'APP_ERR_NOT_FOUND', 'The monitoring tunnel answers at /monitoring only.'],
  ['PAGE_METHOD', 405, 'APP_ERR_METHOD_NOT_ALLOWED', 'This page does not take %s requests (it allows %s).'],
  ['DATA_METHOD', 405, 'APP_ERR_METHOD_NOT_ALLOWED', 'Page data is only read: %s is not taken here (it allows GET, HEAD).'],
  ['API_METHOD', 405, 'APP_ERR_METHOD_NOT_ALLOWED', 'This API route does not take %s (it allows %s).'],
  ['ASSET_METHOD', 405, 'APP_ERR_METHOD_NOT_ALLOWED', 'Assets are only read: %s is not taken here (it allows GET, HEAD).'],
  ['TUNNEL_METHOD', 405, 'APP_ERR_METHOD_NOT_ALLOWED', 'The monitoring tunnel only takes POST.'],
  ['NO_ACTIONS', 405, 'APP_ERR_METHOD_NOT_ALLOWED', 'This page has no actions to post to.'],
  ['MALFORMED_URL', 400, 'APP_ERR_BAD_URL', 'The address is malformed: a path starts with / and its percent-encoding is valid UTF-8.'],
  ['URI_TOO_LONG', 414, 'APP_ERR_URI_TOO_LONG', 'The address is too long.'],
  ['NOT_HTTP', 400, 'APP_ERR_BAD_REQUEST', 'The request is not valid HTTP.'],
  ['BODY_CUT_SHORT', 400, 'APP_ERR_BAD_REQUEST', 'The request ended before its whole body arrived.'],
  ['HEADERS_TOO_LARGE', 431, 'APP_ERR_HEADERS_TOO_LARGE', 'The request headers are larger than this server accepts.'],
  ['REQUEST_TIMEOUT', 408, 'APP_ERR_TIMEOUT', 'The request did not arrive in time.'],
  ['CONNECT', 400, 'APP_ERR_BAD_REQUEST', 'This server is not a proxy: it does not take CONNECT.'],
  ['HOST_TWICE', 400, 'APP_ERR_BAD_HOST', 'The request has more than one Host header.'],
  ['HOST_MISSING', 400, 'APP_ERR_BAD_HOST', 'The request has no Host header.'],
  ['HOST_MALFORMED', 400, 'APP_ERR_BAD_HOST', 'The Host header is not a host name.'],
  ['TARGET_HOST_MALFORMED', 400, 'APP_ERR_BAD_HOST', 'The host in the request target is not a host name.'],
  ['MISDIRECTED', 421, 'APP_ERR_MISDIRECTED', 'This server does not answer for the host name in the request (see ALLOWED_HOSTS).'],
  ['EXPECTATION_FAILED', 417, 'APP_ERR_EXPECTATION_FAILED', 'This server meets no expectation but Expect: 100-continue.'],
  ['RATE_LIMITED', 429, 'APP_ERR_RATE_LIMITED', 'Too many requests from this address: try again in %s.'],
  ['BODY_TOO_LARGE', 413, 'APP_ERR_BODY_TOO_LARGE', 'The request body is larger than this address accepts.'],
  ['UNSUPPORTED_MEDIA_TYPE', 415, 'APP_ERR_UNSUPPORTED_MEDIA_TYPE', 'This address does not accept the content type of the request body.'],
  ['BAD_CONTENT_LENGTH', 400, 'APP_ERR_BAD_REQUEST', 'The request body does not match its Content-Length.'],
  ['BAD_JSON', 400, 'APP_ERR_BAD_JSON', 'The request body is not valid JSON.'],
  ['EMPTY_JSON', 400, 'APP_ERR_BAD_JSON', 'The request body is empty, but its content type says JSON.'],
  ['JSON_NOT_UTF8', 400, 'APP_ERR_BAD_JSON', 'The request body is not valid UTF-8.'],
  ['JSON_CHARSET', 415, 'APP_ERR_UNSUPPORTED_MEDIA_TYPE', 'A JSON body must be UTF-8: its Content-Type names another charset.'],
  ['POISONED_JSON', 400, 'APP_ERR_BAD_JSON', 'The JSON body has a "__proto__" or "constructor.prototype" key, which is refused.'],
  ['VALIDATION', 400, 'APP_ERR_VALIDATION', '%s'],
  ['SIGN_IN_REQUIRED', 401, 'APP_ERR_UNAUTHORIZED', 'Sign in to use this route.'],
  ['NO_ORIGIN', 403, 'APP_ERR_CROSS_ORIGIN', 'Form posts must carry an Origin or Referer header; this one has neither.'],
  ['OPAQUE_ORIGIN', 403, 'APP_ERR_CROSS_ORIGIN', 'Form posts from an opaque or malformed origin are refused.'],
  ['CROSS_ORIGIN', 403, 'APP_ERR_CROSS_ORIGIN', 'Form posts from another origin are refused: only this site and the allowed origins may post here.'],
  ['FORM_TOO_LARGE', 413, 'APP_ERR_BODY_TOO_LARGE', 'Forms may be at most %s bytes.'],
  ['FORM_NOT_URLENCODED', 415, 'APP_ERR_UNSUPPORTED_MEDIA_TYPE', 'Forms must be sent as application/x-www-form-urlencoded.'],
  ['FORM_CHARSET', 415, 'APP_ERR_UNSUPPORTED_MEDIA_TYPE', 'Forms must be sent in UTF-8, not %s.'],
  ['IDENTITY_CHANGED', 409, 'APP_ERR_IDENTITY_CHANGED', 'You signed in or out in another tab since this form was shown, so it was not sent.'],
  ['NO_ACTION', 400, 'APP_ERR_NO_ACTION', 'The form names no action (its %s field is missing).'],
  ['ACTION_BEFORE_FILES', 400, 'APP_ERR_NO_ACTION', 'The form must name its action (its %s field) before its files.'],
  ['UNKNOWN_ACTION', 404, 'APP_ERR_UNKNOWN_ACTION', 'This page has no action named %s.'],
  [
    'ACTION_TAKES_NO_FILES',
    415,
    'APP_ERR_UNSUPPORTED_MEDIA_TYPE',
    'This action takes no files: its form must be sent as application/x-www-form-urlencoded.',
  ],
  ['MULTIPART_MALFORMED', 400, 'APP_ERR_BAD_MULTIPART', 'The multipart form is malformed or incomplete.'],
  ['MULTIPART_FIELD_NAME', 400, 'APP_ERR_BAD_MULTIPART', 'The form has a field whose name is not allowed.'],
  ['MULTIPART_FIELD_NOT_TEXT', 400, 'APP_ERR_BAD_MULTIPART', 'Form fields must be plain text.'],
  ['FILE_WITHOUT_NAME', 400, 'APP_ERR_BAD_MULTIPART', 'The file for %s has no file name.'],
  ['TOO_MANY_PARTS', 413, 'APP_ERR_TOO_MANY_PARTS', 'A form may have at most %s parts.'],
  ['TOO_MANY_FIELDS', 413, 'APP_ERR_TOO_MANY_PARTS', 'A form may have at most %s text fields.'],
  ['TOO_MANY_FILES', 413, 'APP_ERR_TOO_MANY_PARTS', 'A form may have at most %s files.'],
  ['FORM_WITH_FILES_TOO_LARGE', 413, 'APP_ERR_BODY_TOO_LARGE', 'A form with files may be at most %s (%s bytes) in all.'],
  ['FORM_TEXT_TOO_LARGE', 413, 'APP_ERR_BODY_TOO_LARGE', 'The text of a form may be at most %s bytes.'],
  ['FILE_TOO_LARGE', 413, 'APP_ERR_BODY_TOO_LARGE', 'The file for "%s" may be at most %s (%s bytes).'],
  ['FILE_WRONG_TYPE', 415, 'APP_ERR_UNSUPPORTED_MEDIA_TYPE', 'The file for "%s" must be a %s file (%s).'],
  ['EMPTY_FILE', 400, 'APP_ERR_EMPTY_FILE', 'The file for "%s" is empty.'],
  ['UNDECLARED_FILE', 400, 'APP_ERR_UNDECLARED_FILE', 'This form takes no file named %s.'],
  ['FILE_TWICE', 400, 'APP_ERR_UNDECLARED_FILE', 'This form takes one file for %s, not several.'],
  ['ASSET_NUL_BYTE', 400, 'APP_ERR_BAD_URL', 'An asset path cannot contain a NUL byte (%00).'],
  ['ASSET_OUTSIDE', 403, 'APP_ERR_FORBIDDEN_PATH', 'An asset path cannot step out of the assets folder (..) or name a dotfile.'],
  [
    'ASSET_RANGE',
    416,
    'APP_ERR_RANGE_NOT_SATISFIABLE',
    'The requested range is malformed or starts past the end of the asset (its length is in Content-Range).',
  ],
  ['FILE_RANGE', 416, 'APP_ERR_RANGE_NOT_SATISFIABLE', 'The range asked for starts past the end of the file (its length is in Content-Range).'],
  ['TUNNEL_BODY_TOO_LARGE', 413, 'APP_ERR_BAD_REQUEST', 'Envelopes may be at most %s bytes.'],
  ['TUNNEL_PARAMETERS', 400, 'APP_ERR_BAD_REQUEST', 'Tunnel URLs take only the parameters o, p and r.'],
  ['TUNNEL_ORG', 400, 'APP_ERR_BAD_REQUEST', 'Tunnel parameter "o" must be the organisation id (digits).'],
  ['TUNNEL_PROJECT', 400, 'APP_ERR_BAD_REQUEST', 'Tunnel parameter "p" must be the project id (digits).'],
  ['TUNNEL_REGION', 400, 'APP_ERR_BAD_REQUEST', 'Tunnel parameter "r" must be a region of two lowercase letters.'],
  ['TUNNEL_NOT_ALLOWED', 403, 'APP_ERR_BAD_REQUEST', 'The tunnel does not forward to this project.'],
  ['ENVELOPE_EMPTY', 400, 'APP_ERR_BAD_REQUEST', 'The envelope is empty.'],
  ['ENVELOPE_CODING', 415, 'APP_ERR_BAD_REQUEST', 'Envelopes may be gzip-encoded or plain.'],
  ['ENVELOPE_HEADER_TOO_LONG', 400, 'APP_ERR_BAD_REQUEST', 'The envelope header line is over 64 KiB.'],
  ['ENVELOPE_NOT_GZIP', 400, 'APP_ERR_BAD_REQUEST', 'The body is not valid gzip.'],
  ['ENVELOPE_HEADER_NOT_JSON', 400, 'APP_ERR_BAD_REQUEST', 'The envelope header is not JSON.'],
  ['ENVELOPE_NO_DSN', 400, 'APP_ERR_BAD_REQUEST', 'The envelope header names no DSN.'],
  ['ENVELOPE_OTHER_DSN', 403, 'APP_ERR_BAD_REQUEST', "The envelope's DSN is not the allowed DSN the tunnel URL names."],
  ['INGEST_TIMEOUT', 504, 'APP_ERR_HTTP', 'Sentry ingest did not answer in time.'],
  ['INGEST_UNREACHABLE', 502, 'APP_ERR_HTTP', 'Sentry ingest is unreachable.'],
  ['INGEST_REDIRECT', 502, 'APP_ERR_HTTP', 'Sentry ingest answered with a redirect, which the tunnel does not follow.'],
  ['TUNNEL_FAILED', 500, 'APP_ERR_HTTP', 'The tunnel failed.'],
  ['SESSIONS_UNAVAILABLE', 503, 'APP_ERR_SESSIONS_UNAVAILABLE', 'Sessions are unavailable for a moment; try again shortly.'],
  ['DRAINING', 503, 'APP_ERR_DRAINING', 'This instance is shutting down'],
  ['OVERLOADED', 503, 'APP_ERR_OVERLOADED', 'The server is busy; try again in a few seconds.'],
  ['INTERNAL', 500, 'APP_ERR_INTERNAL', 'Internal server error'],
]

t.test('every client error, with its status, code and words', async (t) => {
  const actual = Object.entries(errors).map(([name, entry]) => [name, entry.status, entry.code, entry.message])
  t.same(actual, TABLE)
})

t.test('every code clients can read is in the table (a redirect is no error response)', async (t) => {
  const used = new Set(Object.values(errors).map((entry) => entry.code))
  const missing = Object.values(ErrorCode).filter((code) => code !== ErrorCode.REDIRECT && !used.has(code))
  t.same(missing, [])
})

t.test("an entry's %s are filled in order, and a value that holds %s stays as it is", async (t) => {
  t.same(errors.PAGE_METHOD('PUT', 'GET, HEAD'), {
    status: 405,
    code: 'APP_ERR_METHOD_NOT_ALLOWED',
    message: 'This page does not take PUT requests (it allows GET, HEAD).',
  })
  t.equal(errors.UNKNOWN_ACTION('"%s"').message, 'This page has no action named "%s".')
})

t.test('the 404 has one wording for each kind of response', async (t) => {
  const { app, build } = await createTestApp(t)
  const sameOrigin = { origin: 'http://localhost:80', 'content-type': 'application/x-www-form-urlencoded' }

  const page = await app.inject('/no/such/page')
  t.equal(page.statusCode, 404)
  t.match(page.body, '<h1>404: This page could not be found.</h1>', 'HTML page: the not-found page')
  const pagePut = await app.inject({ method: 'PUT', url: '/no/such/page' })
  t.equal(pagePut.statusCode, 404)
  t.match(pagePut.body, '<h1>404</h1><p>This page could not be found.</p>', 'HTML page sent without React: the same words')
  // An untidy path: no form is ever on one.
  const form = await app.inject({ method: 'POST', url: '/about/', headers: { ...sameOrigin, accept: 'application/json' }, payload: 'x=1' })
  t.equal(form.statusCode, 404)
  t.match(form.json(), { error: { code: 'APP_ERR_NOT_FOUND', message: 'This page could not be found.' } }, 'a form post to no page')

  const data = await app.inject('/_data/no/such/page')
  t.equal(data.statusCode, 404)
  t.same(data.json(), { kind: 'not-found', status: 404, buildId: build.manifest.buildId }, 'page data: the not-found payload')

  for (const url of ['/api/no/such/route', '/api/lookup/2']) {
    const api = await app.inject(url)
    t.equal(api.statusCode, 404, url)
    t.match(api.json(), { error: { code: 'APP_ERR_NOT_FOUND', message: 'Nothing was found at this address.' } }, `/api JSON: ${url}`)
  }

  const asset = await app.inject('/assets/no-such-file.js')
  t.equal(asset.statusCode, 404)
  t.match(asset.headers['content-type'], /^text\/plain/)
  t.equal(asset.body, 'There is no asset at this address.', 'static asset: plain text')

  const tunnel = await app.inject({ method: 'POST', url: '/monitoring/elsewhere' })
  t.equal(tunnel.statusCode, 404)
  t.equal(tunnel.body, 'The monitoring tunnel answers at /monitoring only.', 'tunnel: plain text')
})
