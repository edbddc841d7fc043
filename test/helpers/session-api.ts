/** An /api route that counts its calls in the session (`GET /api/test/visits`): what an /api route using the session does. */
import type { FastifyPluginAsync } from 'fastify'
import { openResponse } from '../../server/framework/response-control.js'

export const countingApi: FastifyPluginAsync = async (fastify) => {
  fastify.get('/test/visits', async (request, reply) => {
    const response = await openResponse(request)
    const visits = Number(response.session.get('visits') ?? 0) + 1
    response.session.set('visits', visits)
    await response.applyTo(reply)
    return { visits }
  })
}
