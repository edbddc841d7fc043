/**
 * The client build's files under /assets/. Every file there has a content hash in its
 * name, so it can be cached for a year and never revalidated. An unknown asset is a
 * plain 404 (never the HTML not-found page: a script tag must not receive HTML).
 * Source maps are built but not served: they go to error monitoring, not to visitors.
 */
import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'

export interface StaticPluginOptions {
  readonly root: string
}

export default async function staticPlugin(fastify: FastifyInstance, opts: StaticPluginOptions) {
  fastify.setNotFoundHandler(function sendAssetNotFound(_request, reply) {
    reply.code(404).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send('Asset not found')
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
    allowedPath: (pathname) => !pathname.endsWith('.map'),
  })
}
