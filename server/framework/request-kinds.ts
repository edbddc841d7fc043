/**
 * The kind of a request decides the form of every error response it gets. The plugin that owns the
 * route declares it; only a request no route took falls back to its target's prefix.
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
    requestKind?: RequestKind
  }
}

/** Every route the plugin's context registers from now on. */
export function declareRequestKind(fastify: FastifyInstance, kind: RequestKind): void {
  fastify.addHook('onRoute', (route: RouteOptions) => {
    route.config = { ...route.config, requestKind: route.config?.requestKind ?? kind }
  })
}

/** `route`: the request's `routeOptions` when the caller already read them (a getter that builds an object). */
export function requestKindOf(request: FastifyRequest, route: FastifyRequest['routeOptions'] = request.routeOptions): RequestKind {
  return route.config?.requestKind ?? requestKindOfTarget(request.url)
}

function isUnder(target: string, prefix: string): boolean {
  if (!target.startsWith(prefix)) return false
  const next = target.charAt(prefix.length)
  return next === '' || next === '/' || next === '?' || next === '#'
}

/** For requests no route took. */
export function requestKindOfTarget(rawTarget: string): RequestKind {
  const target = originForm(rawTarget)
  if (isUnder(target, '/api')) return 'api'
  if (isUnder(target, DATA_PREFIX)) return 'data'
  if (isUnder(target, TUNNEL_PATH)) return 'monitoring'
  if (isUnder(target, '/assets')) return 'assets'
  return 'page'
}

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

export interface BuildFacts {
  readonly buildId: string
  readonly stylesheets: readonly string[]
}

export interface ErrorBody {
  readonly type: string
  readonly body: string
}

export type ErrorView =
  | { readonly status: number; readonly code: string; readonly message: string; readonly digest?: undefined }
  | { readonly status: number; readonly digest: string; readonly code?: undefined; readonly message?: undefined }

const JSON_TYPE = 'application/json; charset=utf-8'
const TEXT_TYPE = 'text/plain; charset=utf-8'

export function errorBodyFor(requestId: string, code: string, message: string, digest?: string) {
  return { error: { code, message, requestId, ...(digest ? { digest } : {}) } }
}

/** A server error says only its digest. */
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
