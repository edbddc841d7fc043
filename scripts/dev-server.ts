/**
 * One run of the development server: the production app (server/framework/app.ts) in
 * development mode (server/framework/development/), listening on PORT and HOST like production.
 * `npm run dev` (scripts/dev.ts) starts it, and starts it again after an edit to the
 * server's own code. Log lines are pretty-printed, stacks included.
 */
import type { Socket } from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pretty from 'pino-pretty'
import { buildApp } from '../server/framework/app.js'
import { listenOrExit, loadConfigOrExit } from '../server/framework/process.js'
import { prepareDevelopment } from '../server/framework/development/index.js'
import { application } from '../server/application.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

const config = loadConfigOrExit({ variables: application.configVariables })

const development = await prepareDevelopment(root, Object.keys(application.definition.router.routes))
// One line per entry (errors keep their multi-line stack).
const logStream = pretty({ colorize: process.stdout.isTTY, ignore: 'pid,hostname', translateTime: 'HH:MM:ss.l', singleLine: true })
const app = buildApp(config, { application, development, logStream })

// Every socket, HMR's websocket included: a restart closes them at once instead of
// waiting for the browser to let go (production drains; development has nothing to lose).
const sockets = new Set<Socket>()
app.server.on('connection', (socket: Socket) => {
  sockets.add(socket)
  socket.on('close', () => sockets.delete(socket))
})

async function stop() {
  const deadline = setTimeout(() => process.exit(1), 5_000)
  deadline.unref()
  for (const socket of sockets) socket.destroy()
  await app.close()
  process.exit(0)
}
process.once('SIGTERM', stop)
process.once('SIGINT', stop)

await listenOrExit(app, config)
const address = app.server.address()
const port = typeof address === 'object' && address ? address.port : config.port
// scripts/dev.ts and the tests read this line.
console.log(`Development server ready at http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}/`)
process.send?.({ ready: true }) // scripts/dev.ts times the restart
