/**
 * HTTP validation for static routes (docs/architecture.md, "Routes", "Operations"): their page is the same for
 * everyone, so shared caches may keep it for the page-data lifetime and revalidate
 * with its ETag. The ETag is the build id plus a hash of the page's data, not of the
 * bytes (the same data gives the same page; static-pages.ts adds the product's `<html>` attributes and encoding
 * to it, each a representation of its own).
 */
import { createHash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { STATIC_DATA_TTL_MS } from '../../../shared/framework/constants.js'
import type { RenderPayload } from '../../../shared/framework/page-payload.js'
import type { SharedCacheDecl } from '../../../shared/framework/shared-cache.js'

/**
 * On every streamed response: nginx (and proxies that copy it) buffer a proxied response
 * by default, which would hold the shell until the last deferred part; this header turns
 * that off for this response only.
 */
export const STREAMED_HEADER = 'x-accel-buffering'

/** Cache-Control of a static route's 200 answer: browsers and shared caches, for its lifetime. */
export const STATIC_CACHE_CONTROL = `public, max-age=${STATIC_DATA_TTL_MS / 1000}`

/**
 * A static route's cache headers: with `sharedCache` declared, `s-maxage` for every shared
 * cache and `CDN-Cache-Control` for the CDNs that read it (RFC 9213) and leave
 * `Cache-Control` to browsers.
 */
export function staticCacheHeaders(route: { readonly sharedCache?: SharedCacheDecl | undefined } | undefined): Record<string, string> {
  const shared = route?.sharedCache
  if (!shared) return { 'cache-control': STATIC_CACHE_CONTROL }
  const stale = shared.staleWhileRevalidate ? `, stale-while-revalidate=${shared.staleWhileRevalidate}` : ''
  return {
    'cache-control': `${STATIC_CACHE_CONTROL}, s-maxage=${shared.maxAge}${stale}`,
    'cdn-cache-control': `max-age=${shared.maxAge}${stale}`,
  }
}

/** True when `payload` is a static route's page, the only kind any cache may keep. */
export function isCacheable(payload: RenderPayload): boolean {
  return payload.kind === 'page' && payload.mode === 'static' && payload.status === 200
}

export function etagFor(representation: 'html' | 'data', payload: RenderPayload): string {
  const hash = createHash('sha256').update(JSON.stringify(payload)).digest('base64url').slice(0, 22)
  return `"${representation}-${payload.buildId}-${hash}"`
}

/**
 * Sets the ETag of a cacheable answer and says whether the client already has it; the
 * caller then answers 304 without a body (and without rendering).
 */
export function isNotModified(request: FastifyRequest, reply: FastifyReply, etag: string): boolean {
  reply.header('etag', etag)
  const header = request.headers['if-none-match']
  if (!header) return false
  return header === '*' || header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)
}
