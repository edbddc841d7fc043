/**
 * The client build's files under /assets/, hashed, so cached for a year. An unknown asset is a plain 404:
 * a script tag must not receive HTML. Source maps go to error monitoring, not to visitors.
 */
import fastifyStatic from '@fastify/static'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { errors } from '../error-registry.js'
import { sendMethodNotAllowed } from '../error-responses.js'
import { declareRequestKind } from '../request-kinds.js'

export interface StaticPluginOptions {
  readonly root: string
  readonly compression: boolean
}

export default async function staticPlugin(fastify: FastifyInstance, opts: StaticPluginOptions) {
  declareRequestKind(fastify, 'assets')
  const refuseAssetMethod = async (request: FastifyRequest, reply: FastifyReply) =>
    sendMethodNotAllowed(request, reply, 'GET, HEAD', errors.ASSET_METHOD(request.method))
  // A post would reach the form actions' POST /* (server/framework/plugins/actions.ts) and run one.
  fastify.post('/*', { onRequest: refuseAssetMethod }, refuseAssetMethod)
  fastify.post('/', { onRequest: refuseAssetMethod }, refuseAssetMethod)
  fastify.setNotFoundHandler(function sendAssetNotFound(request, reply) {
    return fastify.errorResponses.send(request, reply, errors.ASSET_NOT_FOUND())
  })
  fastify.addHook('onRequest', async function prepareAssetRequest(request, reply) {
    // Fastify's not-found route would read a JSON or text body first.
    if (request.is404 && request.method !== 'GET' && request.method !== 'HEAD') return refuseAssetMethod(request, reply)
    // If-Range holds only for a matching strong tag, never a weak one nor a date (assets have no
    // Last-Modified); `send` finds a weak tag by substring, and takes a date as fresh.
    const ifRange = request.headers['if-range']
    if (request.headers.range !== undefined && typeof ifRange === 'string') {
      const tag = ifRange.trim()
      if (tag.startsWith('W/') || !tag.startsWith('"')) delete request.headers.range
    }
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
    preCompressed: opts.compression,
    // @fastify/static does not say so itself: the answer depends on Accept-Encoding.
    ...(opts.compression
      ? { setHeaders: (res: { setHeader(name: string, value: string): unknown }) => res.setHeader('vary', 'Accept-Encoding') }
      : {}),
    // A directory (`/assets/`) is no asset either: a 404 like any other, not a 403.
    allowedPath: (pathname) => !/\.(map|br|gz)$/.test(pathname) && !pathname.endsWith('/'),
  })
}
