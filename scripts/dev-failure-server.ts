/**
 * `npm run dev` only: while the development server cannot run, the supervisor
 * (scripts/dev.ts) holds its port with this small server, which answers every request
 * with the failure's page (scripts/dev-failure-page.ts). A tab left open reloads into
 * it (Vite's client pings the port until something answers), a reload shows it again
 * rather than a refused connection, and the page reloads itself once the server is
 * back. The supervisor closes it before it starts the server again.
 */
import { createHash, randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { Duplex } from 'node:stream'
import { CSP_DIRECTIVES, cspHeader, securityHeaders } from '../server/framework/security-headers.js'
import { FAILURE_HEADER, renderFailurePage, type ServerFailure } from './dev-failure-page.js'

export interface FailurePage {
  readonly url: string
  close(): Promise<void>
}

/**
 * Whether the error itself (paths and source lines) may be shown: to a client on this
 * machine (a loopback peer) that named it by a loopback name. Another peer is another
 * machine (`HOST=0.0.0.0`), whatever Host it sends; another name may be a DNS-rebinding
 * attacker's page, and this server does not read ALLOWED_HOSTS.
 */
function isLocal(request: IncomingMessage): boolean {
  const peer = request.socket.remoteAddress ?? ''
  const loopbackPeer = /^(127\.|::ffff:127\.)/.test(peer) || peer === '::1'
  const name = request.headers.host?.toLowerCase().replace(/:\d+$/, '')
  return loopbackPeer && (name === 'localhost' || name === '127.0.0.1' || name === '[::1]')
}

const WEBSOCKET_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11'

/**
 * Vite's client learns that the server is back by opening a websocket with the
 * `vite-ping` protocol, and reloads the tab once one opens: the handshake is all it
 * needs. Any other upgrade is refused.
 */
function answerPing(request: IncomingMessage, socket: Duplex, open: Set<Duplex>): void {
  const key = request.headers['sec-websocket-key']
  const protocols = String(request.headers['sec-websocket-protocol'] ?? '').split(/\s*,\s*/)
  if (typeof key !== 'string' || !protocols.includes('vite-ping')) return void socket.destroy()
  const accept = createHash('sha1')
    .update(key + WEBSOCKET_GUID)
    .digest('base64')
  socket.write(
    'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
      `Sec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: vite-ping\r\n\r\n`,
  )
  // The client closes it at once; its close frame (or its end) is all that comes.
  open.add(socket)
  socket.on('data', () => socket.destroy())
  socket.on('error', () => socket.destroy())
  socket.on('close', () => open.delete(socket))
}

function failureServer(failure: ServerFailure, root: string): { server: Server; upgraded: Set<Duplex> } {
  const id = randomBytes(9).toString('base64url')
  const upgraded = new Set<Duplex>()
  const server = createServer((request, response) => {
    if (request.headers.accept === 'text/x-vite-ping') {
      // The page's own question: is this still the failure it shows?
      response.writeHead(204, { [FAILURE_HEADER]: id, 'cache-control': 'no-store' }).end()
      return
    }
    const nonce = randomBytes(16).toString('base64')
    const nonced = [...CSP_DIRECTIVES.scriptSrc, `'nonce-${nonce}'`]
    const csp = cspHeader({ ...CSP_DIRECTIVES, scriptSrc: nonced, styleSrc: [...CSP_DIRECTIVES.styleSrc, `'nonce-${nonce}'`] })
    const html = renderFailurePage(failure, { root, id, nonce, detailed: isLocal(request) })
    response.writeHead(500, {
      ...securityHeaders(undefined),
      'content-security-policy': csp,
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
    })
    response.end(request.method === 'HEAD' ? undefined : html)
  })
  server.on('upgrade', (request: IncomingMessage, socket: Duplex) => answerPing(request, socket, upgraded))
  server.on('clientError', (_error, socket) => socket.destroy())
  return { server, upgraded }
}

/**
 * Serves the failure's page on the server's address (its HOST and PORT) until `close`.
 * Resolves with undefined, and says why, when the port cannot be had: taken, or
 * `PORT=0`, where every start gets a new port and no tab can wait for the next one.
 */
export async function serveFailurePage(
  root: string,
  address: { readonly host: string; readonly port: number },
  failure: ServerFailure,
): Promise<FailurePage | undefined> {
  if (address.port === 0) return undefined
  const { server, upgraded } = failureServer(failure, root)
  const listening = once(server, 'listening') // rejects on an 'error' first
  server.listen(address.port, address.host)
  try {
    await listening
  } catch (error) {
    console.error(`[dev] no error page for the browser: ${(error as Error).message}`)
    return undefined
  }
  const url = `http://${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}/`
  return {
    url,
    async close() {
      const closed = once(server, 'close')
      server.close()
      server.closeAllConnections()
      for (const socket of upgraded) socket.destroy()
      await closed
    },
  }
}
