/**
 * The kind of a request decides the form of every error response it gets. The route
 * declares it (`config.requestKind`, set by the plugin that owns the route); only a
 * request no route took falls back to its target's prefix.
 *
 * - `api`: `{ "error": { "code", "message", "requestId", "digest"? } }`;
 * - `data` (page data): an error payload, as the browser's navigation reads it;
 * - `monitoring` and `assets`: plain text;
 * - `page`: an HTML page, with the app's stylesheet and no script;
 * - `action` (a form post): the page again or JSON, rendered by the actions plugin.
 */
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify'
import { DATA_PREFIX } from '../../shared/framework/constants.js'
import { SERVER_ERROR_TEXT } from '../../shared/framework/error-texts.js'
import { originForm } from '../../shared/framework/location.js'
import { TUNNEL_PATH } from '../../shared/framework/monitoring.js'
import type { ErrorPayload } from '../../shared/framework/page-payload.js'
import { renderClientErrorDocument, renderShellErrorDocument } from './error-documents.js'
import { errors, type ClientError } from './error-registry.js'

export type RequestKind = 'api' | 'data' | 'monitoring' | 'assets' | 'page' | 'action'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The kind of the route's requests, which picks the form of their error responses. */
    requestKind?: RequestKind
  }
}

/** Every route `fastify` (a plugin's context) registers from now on is of `kind`. */
export function declareRequestKind(fastify: FastifyInstance, kind: RequestKind): void {
  fastify.addHook('onRoute', (route: RouteOptions) => {
    route.config = { ...route.config, requestKind: route.config?.requestKind ?? kind }
  })
}

export function requestKindOf(request: FastifyRequest): RequestKind {
  return request.routeOptions.config?.requestKind ?? requestKindOfTarget(request.url)
}

function isUnder(target: string, prefix: string): boolean {
  if (!target.startsWith(prefix)) return false
  const next = target.charAt(prefix.length)
  return next === '' || next === '/' || next === '?' || next === '#'
}

/** The kind a target names by its prefix: for requests no route took. */
export function requestKindOfTarget(rawTarget: string): RequestKind {
  const target = originForm(rawTarget)
  if (isUnder(target, '/api')) return 'api'
  if (isUnder(target, DATA_PREFIX)) return 'data'
  if (isUnder(target, TUNNEL_PATH)) return 'monitoring'
  if (isUnder(target, '/assets')) return 'assets'
  return 'page'
}

/** The 404 of each kind of request: one wording each. */
export function notFoundFor(kind: RequestKind): ClientError {
  switch (kind) {
    case 'api':
      return errors.API_NOT_FOUND()
    case 'assets':
      return errors.ASSET_NOT_FOUND()
    case 'monitoring':
      return errors.TUNNEL_NOT_FOUND()
    default:
      return errors.PAGE_NOT_FOUND()
  }
}

/** The log line of a server error, by kind. */
export function failedMessageFor(kind: RequestKind): string {
  switch (kind) {
    case 'api':
      return 'api request failed'
    case 'action':
      return 'form post failed'
    case 'monitoring':
      return 'monitoring tunnel failed'
    default:
      return 'request failed'
  }
}

/** What a response needs of the client build: its id (page data) and its stylesheets (pages). */
export interface BuildFacts {
  readonly buildId: string
  readonly stylesheets: readonly string[]
}

export interface ErrorBody {
  readonly type: string
  readonly body: string
}

/** What a client is told of an error: a client error's code and words, or a server error's digest. */
export type ErrorView =
  | { readonly status: number; readonly code: string; readonly message: string; readonly digest?: undefined }
  | { readonly status: number; readonly digest: string; readonly code?: undefined; readonly message?: undefined }

const JSON_TYPE = 'application/json; charset=utf-8'
const TEXT_TYPE = 'text/plain; charset=utf-8'

/** The JSON error body of `/api` and of form posts sent by scripts. */
export function errorBodyFor(requestId: string, code: string, message: string, digest?: string) {
  return { error: { code, message, requestId, ...(digest ? { digest } : {}) } }
}

/** An error in the form `kind` speaks (an action's, when no renderer took it, as a page's); a server error says only its digest. */
export function errorBodyOf(build: BuildFacts, kind: RequestKind, view: ErrorView, requestId: string): ErrorBody {
  const { status, digest } = view
  switch (kind) {
    case 'api': {
      const { code, message } = digest === undefined ? view : errors.INTERNAL()
      return { type: JSON_TYPE, body: JSON.stringify(errorBodyFor(requestId, code, message, digest)) }
    }
    case 'data': {
      const payload: ErrorPayload =
        digest === undefined
          ? { kind: 'error', status, message: view.message, buildId: build.buildId }
          : { kind: 'error', status, digest, buildId: build.buildId }
      return { type: JSON_TYPE, body: JSON.stringify(payload) }
    }
    case 'monitoring':
      return { type: TEXT_TYPE, body: digest === undefined ? view.message : errors.TUNNEL_FAILED().message }
    case 'assets':
      // `send` fails with a 5xx only when the disk does: the page's form says the digest.
      return digest === undefined ? { type: TEXT_TYPE, body: view.message } : pageBody(build, view)
    case 'page':
    case 'action':
      return pageBody(build, view)
  }
}

function pageBody(build: BuildFacts, view: ErrorView): ErrorBody {
  return {
    type: 'text/html; charset=utf-8',
    body:
      view.digest === undefined
        ? renderClientErrorDocument(view.status, view.message, build.stylesheets)
        : renderShellErrorDocument(SERVER_ERROR_TEXT, view.digest),
  }
}
