/**
 * The client build's files under /assets/. Every file there has a content hash in its
 * name, so it can be cached for a year and never revalidated. An unknown asset is a
 * plain 404 (never the HTML not-found page: a script tag must not receive HTML).
 * Source maps are built but not served: they go to error monitoring, not to visitors.
 */
import fastifyStatic from '@fastify/static'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { errors } from '../error-registry.js'
import { sendMethodNotAllowed } from '../error-responses.js'
import { declareRequestKind } from '../request-kinds.js'

export interface StaticPluginOptions {
  readonly root: string
  /** Serve the build's `.br` and `.gz` beside each file to clients that accept them. */
  readonly compression: boolean
}

export default async function staticPlugin(fastify: FastifyInstance, opts: StaticPluginOptions) {
  declareRequestKind(fastify, 'assets')
  // Assets are only read: any other method is a 405, refused before a body is read.
  const refuseAssetMethod = async (request: FastifyRequest, reply: FastifyReply) =>
    sendMethodNotAllowed(request, reply, 'GET, HEAD', errors.ASSET_METHOD(request.method))
  // A post would reach the form actions' POST /* (server/framework/plugins/actions.ts) and run one.
  fastify.post('/*', { onRequest: refuseAssetMethod }, refuseAssetMethod)
  fastify.post('/', { onRequest: refuseAssetMethod }, refuseAssetMethod)
  fastify.setNotFoundHandler(function sendAssetNotFound(request, reply) {
    return fastify.errorResponses.send(request, reply, errors.ASSET_NOT_FOUND())
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
  // What @fastify/static (its `send`) refuses goes to the app's error handler, which
  // words it by this request kind (server/framework/failures.ts).
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
