/**
 * HTTP validation for static routes: their page is the same for everyone, so caches may
 * keep it and revalidate with its ETag, the build id plus a hash of the page's data (the
 * same data gives the same page, whatever `<html>` attributes and encoding go around it).
 */
import { createHash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { STATIC_DATA_TTL_MS } from '../../../shared/framework/constants.js'
import type { RenderPayload } from '../../../shared/framework/page-payload.js'
import type { SharedCacheDecl } from '../../../shared/framework/shared-cache.js'

/** nginx (and proxies that copy it) buffer responses, which would hold the shell until the last deferred part. */
export const STREAMED_HEADER = 'x-accel-buffering'

export const STATIC_CACHE_CONTROL = `public, max-age=${STATIC_DATA_TTL_MS / 1000}`

/** With `sharedCache`: `s-maxage` for shared caches, and `CDN-Cache-Control` (RFC 9213) for the CDNs that read it. */
export function staticCacheHeaders(route: { readonly sharedCache?: SharedCacheDecl | undefined } | undefined): Record<string, string> {
  const shared = route?.sharedCache
  if (!shared) return { 'cache-control': STATIC_CACHE_CONTROL }
  const stale = shared.staleWhileRevalidate ? `, stale-while-revalidate=${shared.staleWhileRevalidate}` : ''
  return {
    'cache-control': `${STATIC_CACHE_CONTROL}, s-maxage=${shared.maxAge}${stale}`,
    'cdn-cache-control': `max-age=${shared.maxAge}${stale}`,
  }
}

/** A static route's page, the only kind any cache may keep. */
export function isCacheable(payload: RenderPayload): boolean {
  return payload.kind === 'page' && payload.mode === 'static' && payload.status === 200
}

export function etagFor(representation: 'html' | 'data', payload: RenderPayload): string {
  const hash = createHash('sha256').update(JSON.stringify(payload)).digest('base64url').slice(0, 22)
  return `"${representation}-${payload.buildId}-${hash}"`
}

/** Sets the ETag; true when the client already has it (the caller sends a 304 without rendering). */
export function isNotModified(request: FastifyRequest, reply: FastifyReply, etag: string): boolean {
  reply.header('etag', etag)
  const header = request.headers['if-none-match']
  if (!header) return false
  return header === '*' || header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)
}
