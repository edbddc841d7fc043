/**
 * Page requests's routes (docs/architecture.md, "Page requests"): HTML, and `/_data<page path>` as JSON.
 * Everything no more specific prefix claims lands here, as does any method no route takes: a 405 with Allow.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { DATA_PREFIX } from '../../../shared/framework/constants.js'
import { allowedMethods } from '../../../shared/framework/route-actions.js'
import { errors } from '../error-registry.js'
import { sendMethodNotAllowed } from '../error-responses.js'
import { requestKindOfTarget } from '../request-kinds.js'
import type { PageHandlers } from '../render/page-handlers.js'
import { locationOfTarget } from '../render/resolve-page.js'

export interface PagesPluginOptions {
  readonly pages: PageHandlers
}

export default async function pagesPlugin(fastify: FastifyInstance, { pages }: PagesPluginOptions) {
  fastify.get('/*', function renderPageDocument(request: FastifyRequest, reply: FastifyReply) {
    return pages.handleDocumentRequest(request, reply)
  })

  fastify.get(`${DATA_PREFIX}/*`, { config: { requestKind: 'data' } }, function sendPageData(request: FastifyRequest, reply: FastifyReply) {
    return pages.handleDataRequest(request, reply)
  })

  // Refused before any body is read, so a 405 whatever the body's type.
  async function refusePageMethod(request: FastifyRequest, reply: FastifyReply) {
    const location = locationOfTarget(request.url)
    if (!location) return fastify.errorResponses.send(request, reply, errors.MALFORMED_URL())
    const { router } = pages.view().definition
    const match = router.match(location.pathname)
    if (!match) return fastify.errorResponses.send(request, reply, errors.PAGE_NOT_FOUND())
    const allow = allowedMethods(router, match.id)
    return sendMethodNotAllowed(request, reply, allow, errors.PAGE_METHOD(request.method, allow))
  }
  async function refuseDataMethod(request: FastifyRequest, reply: FastifyReply) {
    return sendMethodNotAllowed(request, reply, 'GET, HEAD', errors.DATA_METHOD(request.method))
  }
  // A post would reach the form actions' POST /* (server/framework/plugins/actions.ts) and run one.
  fastify.post(`${DATA_PREFIX}/*`, { config: { requestKind: 'data' }, onRequest: refuseDataMethod }, refuseDataMethod)
  fastify.post(DATA_PREFIX, { config: { requestKind: 'data' }, onRequest: refuseDataMethod }, refuseDataMethod)

  // Fastify's own 404 would quote the URL, and its not-found route would read a JSON or text body first.
  fastify.addHook('onRequest', async function refuseUnroutedEarly(request, reply) {
    if (request.is404) return refuseUnroutedMethod(request, reply)
  })
  fastify.setNotFoundHandler(refuseUnroutedMethod)
  function refuseUnroutedMethod(request: FastifyRequest, reply: FastifyReply) {
    switch (requestKindOfTarget(request.url)) {
      case 'data':
        return refuseDataMethod(request, reply)
      case 'monitoring':
        return sendMethodNotAllowed(request, reply, 'POST', errors.TUNNEL_METHOD())
      default:
        return refusePageMethod(request, reply)
    }
  }
}
