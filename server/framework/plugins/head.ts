/**
 * HEAD, answered by the GET route with its body dropped last, so the headers are its GET's (the
 * compressed Content-Length). Fastify's own HEAD routes drop the body before the hooks added later.
 * Registered after @fastify/compress: onRoute hooks run in the order they were added.
 */
import type { FastifyInstance, onSendHookHandler } from 'fastify'
import fp from 'fastify-plugin'

async function headPlugin(fastify: FastifyInstance) {
  fastify.addHook('onRoute', function routeHeadAsGet(route) {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    // A HEAD route of its own (declared before its GET) answers HEAD itself.
    const ownHead = fastify.hasRoute({ method: 'HEAD', url: route.url, ...(route.constraints ? { constraints: route.constraints } : {}) })
    if (methods.includes('GET') && !methods.includes('HEAD') && !ownHead) route.method = [...methods, 'HEAD']
    else if (!methods.includes('HEAD')) return
    const onSend = route.onSend ?? []
    route.onSend = [...(Array.isArray(onSend) ? onSend : [onSend]), sendHeadersOnly]
  })
}

/** A stream is drained, not sent; the length it would have had stays. */
const sendHeadersOnly: onSendHookHandler = function sendHeadersOnly(request, reply, payload, done) {
  if (request.method !== 'HEAD' || payload === null || payload === undefined) return done(null, payload)
  if (typeof payload === 'string' || Buffer.isBuffer(payload)) {
    if (!reply.hasHeader('content-length')) reply.header('content-length', Buffer.byteLength(payload))
  } else if (typeof (payload as NodeJS.ReadableStream).resume === 'function') {
    const stream = payload as NodeJS.ReadableStream
    stream.on('error', (error) => reply.log.warn({ err: error }, "a HEAD answer's stream failed while drained"))
    stream.resume()
  }
  done(null, null)
}

export default fp(headPlugin, { name: 'head' })
