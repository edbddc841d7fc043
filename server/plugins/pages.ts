/**
 * Page delivery (DESIGN §5): GET a page path answers HTML, GET `/_data<page path>`
 * answers the same page as JSON for client navigation. Both resolve the page the same
 * way (resolve-page.ts), so a URL has one status and one outcome whichever way it is
 * asked for. Everything not claimed by a more specific prefix (/api, /assets) lands
 * here, so an unknown path gets the not-found page. PUT, DELETE, PATCH on a page: 405
 * with Allow (POST is server/plugins/actions.ts). Static routes are served from memory
 * after their first answer (static-pages.ts), except in development.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { DATA_PREFIX } from '../../shared/constants.js'
import { locationOfTarget, resolvePage } from '../render/resolve-page.js'
import { MALFORMED_URL, NO_STORE, type Refusal } from '../http-errors.js'
import { ErrorCode } from '../../shared/errors.js'
import { allowedMethods } from './actions.js'
import { etagFor, isNotModified, STATIC_CACHE_CONTROL } from '../render/conditional.js'
import { cachePolicy, isStreamed, mayCache, renderStaticTemplate, sendPageDocument, type DocumentContext } from '../render/send-page.js'
import type { ScreenPayload } from '../../shared/page-payload.js'
import { StaticCache, withNonce, type StaticData, type StaticPage } from '../render/static-pages.js'

export type PagesPluginOptions = DocumentContext

export default async function pagesPlugin(fastify: FastifyInstance, opts: PagesPluginOptions) {
  const { manifest, development } = opts
  const { buildId } = manifest

  const staticPages = new StaticCache<StaticPage>()
  const staticData = new StaticCache<StaticData>()

  function rememberData(key: string, payload: ScreenPayload): StaticData {
    const data = { json: JSON.stringify(payload), etag: etagFor('data', payload) }
    staticData.set(key, data)
    return data
  }

  /** A static page's data from memory: 304 if the client has it. */
  function sendStaticData(request: FastifyRequest, reply: FastifyReply, data: StaticData) {
    reply.header('cache-control', STATIC_CACHE_CONTROL)
    if (isNotModified(request, reply, data.etag)) return reply.code(304).send()
    return reply.code(200).type('application/json; charset=utf-8').send(data.json)
  }

  /** A static page from memory: 304 if the client has it, else the document with a fresh nonce. */
  function sendStaticPage(request: FastifyRequest, reply: FastifyReply, page: StaticPage) {
    reply.header('cache-control', STATIC_CACHE_CONTROL)
    if (isNotModified(request, reply, page.etag)) return reply.code(304).send()
    return reply.code(200).type('text/html; charset=utf-8').send(withNonce(page.template, reply.cspNonce.script))
  }

  fastify.get('/*', async function renderPageDocument(request: FastifyRequest, reply: FastifyReply) {
    const location = locationOfTarget(request.url)
    if (!location) return fastify.refusals.send(request, reply, MALFORMED_URL)
    const cached = staticPages.get(location.key)
    if (cached) return sendStaticPage(request, reply, cached)

    const { definition } = opts.view()
    const resolution = await resolvePage({ definition, buildId, development }, request, location)
    if (resolution.kind === 'redirect') {
      return reply.header('cache-control', NO_STORE).redirect(resolution.location, resolution.status)
    }
    const { payload } = resolution
    if (mayCache(opts, payload) && !isStreamed(definition, payload)) {
      const template = await renderStaticTemplate(reply, opts, payload, location)
      if (template === undefined) return reply // rendering failed: the 500 page went out
      const page: StaticPage = { template, etag: etagFor('html', payload) }
      staticPages.set(location.key, page)
      rememberData(location.key, payload) // the client's next navigation here needs no loader run either
      return sendStaticPage(request, reply, page)
    }
    return sendPageDocument(reply, opts, payload, location)
  })

  fastify.get(`${DATA_PREFIX}/*`, async function sendPageData(request: FastifyRequest, reply: FastifyReply) {
    const location = locationOfTarget(request.url.slice(DATA_PREFIX.length))
    if (!location) return fastify.refusals.send(request, reply, MALFORMED_URL)
    const cached = staticData.get(location.key)
    if (cached) return sendStaticData(request, reply, cached)
    const { definition } = opts.view()
    const resolution = await resolvePage({ definition, buildId, development }, request, location)
    if (resolution.kind === 'redirect') {
      // A fetch would follow a real 3xx on its own; the client must see the target
      // to navigate to it, so the redirect travels as data.
      return reply
        .header('cache-control', NO_STORE)
        .send({ kind: 'redirect', status: resolution.status, location: resolution.location, buildId })
    }
    const { payload } = resolution
    if (mayCache(opts, payload)) return sendStaticData(request, reply, rememberData(location.key, payload))
    reply.header('cache-control', cachePolicy(opts, payload))
    return reply.code(payload.status).send(payload)
  })

  // Other methods on a page: 405 with what the page does allow (as for a page without
  // actions, server/plugins/actions.ts); OPTIONS answers the same list. No page: 404.
  fastify.route({
    method: ['PUT', 'DELETE', 'PATCH', 'OPTIONS'],
    url: '/*',
    handler: async function refuseMethod(request: FastifyRequest, reply: FastifyReply) {
      const location = locationOfTarget(request.url)
      if (!location) return fastify.refusals.send(request, reply, MALFORMED_URL)
      const match = opts.view().definition.router.match(location.pathname)
      if (!match) return fastify.refusals.send(request, reply, NO_PAGE)
      const allow = allowedMethods(match.route)
      reply.header('allow', allow)
      if (request.method === 'OPTIONS') return reply.header('cache-control', NO_STORE).code(204).send()
      return fastify.refusals.send(request, reply, {
        status: 405,
        code: ErrorCode.METHOD_NOT_ALLOWED,
        message: `This page does not take ${request.method} requests (it allows ${allow}).`,
      })
    },
  })
}

const NO_PAGE: Refusal = { status: 404, code: ErrorCode.NOT_FOUND, message: 'There is no page at this address.' }
