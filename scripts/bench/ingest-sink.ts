/** A stand-in for Sentry's ingest that accepts every envelope at once; prints its origin. */
import { createServer } from 'node:http'

const server = createServer((request, response) => {
  request.resume()
  request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'))
})
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number }
  console.log(`http://127.0.0.1:${port}`)
})
