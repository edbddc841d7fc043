/**
 * The HTTP limit: Fastify answering one fixed HTML page of the size of /items/7's,
 * nothing else. `PORT` and `BYTES` from the environment; prints its origin.
 */
import Fastify from 'fastify'

const page = '<!DOCTYPE html>' + 'x'.repeat(Number(process.env.BYTES ?? 13_500))
const app = Fastify({ logger: false })
app.get('/', (_request, reply) => {
  reply.type('text/html; charset=utf-8').send(page)
})
console.log(await app.listen({ host: '127.0.0.1', port: 0 }))
