/** A port free on 127.0.0.1 right now, for a process a test starts. */
import { createServer } from 'node:net'

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}
