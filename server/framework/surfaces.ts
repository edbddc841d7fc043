/**
 * Which surface a request belongs to, and how each surface renders a failure already
 * decided (./failures.ts): the surface is declared by the route (its `config.surface`,
 * set by the plugin that owns it), so no handler works it out from the URL again. Only
 * a request no route took (refused before routing, or written straight to a socket)
 * falls back to its target's prefix.
 *
 * - `api`: `{ "error": { "code", "message", "requestId", "digest"? } }`;
 * - `data` (page data): an error payload, as the browser's navigation reads it;
 * - `monitoring` and `assets`: plain text;
 * - `page`: an HTML page, with the app's stylesheet and no script.
 */
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify'
import { DATA_PREFIX } from '../../shared/framework/constants.js'
import { SERVER_ERROR_TEXT } from '../../shared/framework/error-texts.js'
import { ErrorCode } from '../../shared/framework/errors.js'
import { originForm } from '../../shared/framework/location.js'
import { TUNNEL_PATH } from '../../shared/framework/monitoring.js'
import type { ErrorPayload } from '../../shared/framework/page-payload.js'
import { renderRefusalDocument, renderShellErrorDocument } from './error-documents.js'

/** Which part of the server answers a request, and so in which form it speaks. */
export type Surface = 'api' | 'data' | 'monitoring' | 'assets' | 'page'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The surface of the route's answers, failures included (server/framework/surfaces.ts). */
    surface?: Surface
  }
}

/** Every route `fastify` (a plugin's context) registers from now on speaks as `surface`. */
export function declareSurface(fastify: FastifyInstance, surface: Surface): void {
  fastify.addHook('onRoute', (route: RouteOptions) => {
    route.config = { ...route.config, surface: route.config?.surface ?? surface }
  })
}

/** The surface of a request: its route's, else (no route took it) its target's prefix. */
export function surfaceOf(request: FastifyRequest): Surface {
  return request.routeOptions.config?.surface ?? surfaceOfTarget(request.url)
}

function isUnder(target: string, prefix: string): boolean {
  if (!target.startsWith(prefix)) return false
  const next = target.charAt(prefix.length)
  return next === '' || next === '/' || next === '?' || next === '#'
}

/** The surface a target names by its prefix: for requests no route took. */
export function surfaceOfTarget(rawTarget: string): Surface {
  // Absolute form (`http://host/api/x`) names the same surface as its path.
  const target = originForm(rawTarget)
  if (isUnder(target, '/api')) return 'api'
  if (isUnder(target, DATA_PREFIX)) return 'data'
  if (isUnder(target, TUNNEL_PATH)) return 'monitoring'
  if (isUnder(target, '/assets')) return 'assets'
  return 'page'
}

/** What a surface needs of the client build: its id (page data) and its stylesheets (pages). */
export interface SurfaceContext {
  readonly buildId: string
  readonly stylesheets: readonly string[]
}

/** A failure's answer: its content type and body. */
export interface FailureAnswer {
  readonly type: string
  readonly body: string
}

/** What a client is told of a failure: a refusal's code and words, or a fault's digest. */
export type FailureView =
  | { readonly status: number; readonly code: string; readonly message: string; readonly digest?: undefined }
  | { readonly status: number; readonly digest: string; readonly code?: undefined; readonly message?: undefined }

const JSON_TYPE = 'application/json; charset=utf-8'

/** The JSON error body of `/api` and of form posts sent by scripts. */
export function errorBodyFor(requestId: string, code: string, message: string, digest?: string) {
  return { error: { code, message, requestId, ...(digest ? { digest } : {}) } }
}

/** Renders a decided failure in the form `surface` speaks; a fault says only its digest. */
export function answerFor(context: SurfaceContext, surface: Surface, failure: FailureView, requestId: string): FailureAnswer {
  const { status, digest } = failure
  switch (surface) {
    case 'api':
      return {
        type: JSON_TYPE,
        body: JSON.stringify(
          digest === undefined
            ? errorBodyFor(requestId, failure.code, failure.message)
            : errorBodyFor(requestId, ErrorCode.INTERNAL, 'Internal server error', digest),
        ),
      }
    case 'data': {
      const payload: ErrorPayload =
        digest === undefined
          ? { kind: 'error', status, message: failure.message, buildId: context.buildId }
          : { kind: 'error', status, digest, buildId: context.buildId }
      return { type: JSON_TYPE, body: JSON.stringify(payload) }
    }
    case 'monitoring':
    case 'assets':
      // A fault here is rare (their own handlers answer theirs): it gets the page's form.
      return digest === undefined ? { type: 'text/plain; charset=utf-8', body: failure.message } : pageAnswer(context, failure)
    case 'page':
      return pageAnswer(context, failure)
  }
}

function pageAnswer(context: SurfaceContext, failure: FailureView): FailureAnswer {
  return {
    type: 'text/html; charset=utf-8',
    body:
      failure.digest === undefined
        ? renderRefusalDocument(failure.status, failure.message, context.stylesheets)
        : renderShellErrorDocument(SERVER_ERROR_TEXT, failure.digest),
  }
}
