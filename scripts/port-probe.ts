/** Whether a port can be listened on right now (`npm run dev` asks before starting Vite). */
import { createServer } from 'node:net'
import { isAddressInUse } from '../server/framework/process.js'

/**
 * Listens on `host`:`port` and lets go at once. Only "in use" answers false: any other
 * failure (an address this machine does not have) is left for the server's own listen
 * to report. Port 0 is always free.
 */
export function portIsFree(host: string, port: number): Promise<boolean> {
  if (port === 0) return Promise.resolve(true)
  return new Promise((resolve) => {
    const probe = createServer()
    probe.once('error', (error) => resolve(!isAddressInUse(error)))
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(true)))
  })
}
