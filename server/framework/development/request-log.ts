/** `npm run dev`'s request log: one line per request the app answered; Vite's modules only at LOG_LEVEL=debug. */
import type { FastifyInstance, FastifyRequest } from 'fastify'

export function logRequests(app: FastifyInstance): void {
  // Answers sent through Fastify's reply: Vite's middleware writes its own to the socket.
  const respondedByApp = new WeakSet<FastifyRequest>()
  app.addHook('onSend', async function markAppResponse(request) {
    respondedByApp.add(request)
  })
  app.addHook('onRequest', async function logWhenFinished(request, reply) {
    const started = performance.now()
    // 'close', not 'finish': an answer the client abandoned gets its line too.
    reply.raw.once('close', () => {
      const ms = Math.round(performance.now() - started)
      const line = `${request.method} ${request.url} ${reply.raw.statusCode} ${ms} ms`
      if (respondedByApp.has(request)) request.log.info(line)
      else request.log.debug(line)
    })
  })
}
