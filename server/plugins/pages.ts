/**
 * Page delivery's routes (docs/architecture.md, "Page delivery"): GET a page path
 * answers HTML, GET `/_data<page path>` the same page as JSON; the page responder
 * (server/render/page-responder.ts) does the rest. Everything not claimed by a more
 * specific prefix (/api, /assets, /monitoring) lands here, so an unknown path gets the
 * not-found page. PUT, DELETE, PATCH on a page: 405 with Allow; OPTIONS lists the same
 * methods (POST is server/plugins/actions.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { DATA_PREFIX } from '../../shared/constants.js'
import { allowedMethods } from '../../shared/route-actions.js'
import { ErrorCode } from '../../shared/errors.js'
import { MALFORMED_URL, NO_STORE, type Refusal } from '../http-errors.js'
import type { PageResponder } from '../render/page-responder.js'
import { locationOfTarget } from '../render/resolve-page.js'

export interface PagesPluginOptions {
  readonly pages: PageResponder
}

const NO_PAGE: Refusal = { status: 404, code: ErrorCode.NOT_FOUND, message: 'There is no page at this address.' }

export default async function pagesPlugin(fastify: FastifyInstance, { pages }: PagesPluginOptions) {
  fastify.get('/*', function renderPageDocument(request: FastifyRequest, reply: FastifyReply) {
    return pages.respondHtml(request, reply)
  })

  fastify.get(`${DATA_PREFIX}/*`, function sendPageData(request: FastifyRequest, reply: FastifyReply) {
    return pages.respondData(request, reply)
  })

  fastify.route({
    method: ['PUT', 'DELETE', 'PATCH', 'OPTIONS'],
    url: '/*',
    handler: async function refuseMethod(request: FastifyRequest, reply: FastifyReply) {
      const location = locationOfTarget(request.url)
      if (!location) return fastify.refusals.send(request, reply, MALFORMED_URL)
      const { router } = pages.view().definition
      const match = router.match(location.pathname)
      if (!match) return fastify.refusals.send(request, reply, NO_PAGE)
      const allow = allowedMethods(router, match.id)
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
