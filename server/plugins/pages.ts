/**
 * Page delivery (DESIGN §5): GET a page path answers HTML, GET `/_data<page path>`
 * answers the same page as JSON for client navigation. Both resolve the page the same
 * way (resolve-page.ts), so a URL has one status and one outcome whichever way it is
 * asked for. Everything not claimed by a more specific prefix (/api, /assets) lands
 * here, so an unknown path gets the not-found page.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { DATA_PREFIX } from '../../shared/constants.js'
import type { BuildManifest } from '../../shared/build-manifest.js'
import type { ScreenPayload } from '../../shared/page-payload.js'
import type { ReadyPage } from '../../client/runtime/page-source.js'
import type { AnyAppDefinition } from '../page-definition.js'
import { resolvePage, splitTarget } from '../render/resolve-page.js'
import { streamPage } from '../render/render-page.js'

export interface PagesPluginOptions {
  readonly definition: AnyAppDefinition
  readonly manifest: BuildManifest
  readonly renderTimeoutMs: number
}

/**
 * Who may keep a copy. Only a static route's page is the same for everyone; the rest
 * (dynamic pages, 404s, errors) is per request.
 */
function cachePolicy(payload: ScreenPayload): string {
  return payload.kind === 'page' && payload.mode === 'static' ? 'no-cache' : 'private, no-store'
}

export default async function pagesPlugin(fastify: FastifyInstance, opts: PagesPluginOptions) {
  const { definition, manifest } = opts

  async function readyPage(payload: ScreenPayload): Promise<ReadyPage> {
    if (payload.kind !== 'page') return { payload }
    const { default: module } = await definition.clientPages[payload.routeId]!()
    return { payload, module }
  }

  fastify.get('/*', async function renderPageDocument(request: FastifyRequest, reply: FastifyReply) {
    const { pathname, search } = splitTarget(request.url)
    const resolution = await resolvePage(definition, manifest.buildId, request, pathname, search)
    if (resolution.kind === 'redirect') {
      return reply.header('cache-control', 'private, no-store').redirect(resolution.location, resolution.status)
    }
    await streamPage(reply, {
      manifest,
      page: await readyPage(resolution.payload),
      pathname,
      search,
      nonce: reply.cspNonce.script,
      headers: { 'cache-control': cachePolicy(resolution.payload) },
      timeoutMs: opts.renderTimeoutMs,
    })
    return reply
  })

  fastify.get(`${DATA_PREFIX}/*`, async function sendPageData(request: FastifyRequest, reply: FastifyReply) {
    const { pathname, search } = splitTarget(request.url.slice(DATA_PREFIX.length))
    const resolution = await resolvePage(definition, manifest.buildId, request, pathname, search)
    if (resolution.kind === 'redirect') {
      // A fetch would follow a real 3xx on its own; the client must see the target
      // to navigate to it, so the redirect travels as data.
      return reply
        .header('cache-control', 'private, no-store')
        .send({ kind: 'redirect', status: resolution.status, location: resolution.location, buildId: manifest.buildId })
    }
    const { payload } = resolution
    return reply.code(payload.status).header('cache-control', cachePolicy(payload)).send(payload)
  })
}
