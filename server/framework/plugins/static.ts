/**
 * The client build's files under /assets/. Every file there has a content hash in its
 * name, so it can be cached for a year and never revalidated. An unknown asset is a
 * plain 404 (never the HTML not-found page: a script tag must not receive HTML).
 * Source maps are built but not served: they go to error monitoring, not to visitors.
 */
import fastifyStatic from '@fastify/static'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ErrorCode } from '../../../shared/framework/errors.js'
import { refuseMethod, statusOf, type Refusal } from '../http-errors.js'
import { declareSurface } from '../surfaces.js'

export interface StaticPluginOptions {
  readonly root: string
  /** Serve the build's `.br` and `.gz` beside each file to clients that accept them. */
  readonly compression: boolean
}

export default async function staticPlugin(fastify: FastifyInstance, opts: StaticPluginOptions) {
  declareSurface(fastify, 'assets')
  // Assets are only read: any other method is a 405, refused before a body is read.
  const refuseAssetMethod = async (request: FastifyRequest, reply: FastifyReply) =>
    refuseMethod(request, reply, 'GET, HEAD', `Assets are only read: ${request.method} is not taken here (it allows GET, HEAD).`)
  // A post would reach the form actions' POST /* (server/framework/plugins/actions.ts) and run one.
  fastify.post('/*', { onRequest: refuseAssetMethod }, refuseAssetMethod)
  fastify.post('/', { onRequest: refuseAssetMethod }, refuseAssetMethod)
  fastify.setNotFoundHandler(function sendAssetNotFound(request, reply) {
    return fastify.refusals.send(request, reply, { status: 404, code: ErrorCode.NOT_FOUND, message: 'Asset not found' })
  })
  // One hook for what every asset request needs before @fastify/static sees it.
  fastify.addHook('onRequest', async function prepareAssetRequest(request, reply) {
    // Any other method would reach the not-found handler, but only after Fastify's
    // not-found route has read a JSON or text body: refused here, before.
    if (request.is404 && request.method !== 'GET' && request.method !== 'HEAD') return refuseAssetMethod(request, reply)
    // If-Range holds only for a strong entity tag that matches (RFC 9110, 13.1.5): a weak
    // one never does, nor a date, as assets have no Last-Modified; then the whole file is
    // sent. `send` finds a weak tag in the header by substring, and takes a date as fresh.
    const ifRange = request.headers['if-range']
    if (request.headers.range !== undefined && typeof ifRange === 'string') {
      const tag = ifRange.trim()
      if (tag.startsWith('W/') || !tag.startsWith('"')) delete request.headers.range
    }
  })
  // What @fastify/static (its `send`) refuses, in our words: its own are "Forbidden" and
  // "Bad Request", and its 416 loses the Content-Range that tells a client the length.
  fastify.setErrorHandler(function refuseAssetRequest(error: Error & { statusCode?: number; headers?: Record<string, string> }, request, reply) {
    // send's errors have no code; Fastify's own (FST_...) are the app's to word.
    const refusal = 'code' in error ? undefined : ASSET_REFUSALS[statusOf(error)]
    if (!refusal) throw error // the app's error handler (server/framework/plugins/errors.ts)
    const contentRange = error.headers?.['Content-Range']
    if (refusal.status === 416 && contentRange) reply.header('content-range', contentRange)
    return fastify.refusals.send(request, reply, refusal)
  })
  await fastify.register(fastifyStatic, {
    root: opts.root,
    prefix: '/',
    wildcard: true,
    index: false,
    list: false,
    dotfiles: 'deny',
    etag: true,
    lastModified: false,
    cacheControl: true,
    maxAge: '365d',
    immutable: true,
    // The build writes `<file>.br` (quality 11) and `<file>.gz` (level 9): sent by
    // Accept-Encoding, with `Vary: Accept-Encoding`.
    preCompressed: opts.compression,
    // @fastify/static does not say so itself: the answer depends on Accept-Encoding.
    ...(opts.compression
      ? { setHeaders: (res: { setHeader(name: string, value: string): unknown }) => res.setHeader('vary', 'Accept-Encoding') }
      : {}),
    // A directory (`/assets/`) is no asset either: a 404 like any other, not a 403.
    allowedPath: (pathname) => !/\.(map|br|gz)$/.test(pathname) && !pathname.endsWith('/'),
  })
}

/** `send`'s refusals, by status. It answers 400 only for a NUL byte: the router refuses malformed percent-encoding first. */
const ASSET_REFUSALS: Readonly<Record<number, Refusal>> = {
  400: { status: 400, code: ErrorCode.BAD_URL, message: 'An asset path cannot contain a NUL byte (%00).' },
  403: {
    status: 403,
    code: ErrorCode.FORBIDDEN_PATH,
    message: 'An asset path cannot step out of the assets folder (..) or name a dotfile.',
  },
  416: {
    status: 416,
    code: ErrorCode.RANGE_NOT_SATISFIABLE,
    // `send` (as nginx) answers 416 to a malformed range (`bytes=abc`, `bytes=5-2`) too.
    message: 'The requested range is malformed or starts past the end of the asset (its length is in Content-Range).',
  },
}
