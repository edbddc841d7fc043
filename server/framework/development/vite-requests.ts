/**
 * Which requests `npm run dev` hands to Vite (docs/decisions/028-development-serves-what-the-browser-needs.md).
 * Vite serves any file under the project (/package.json, `?raw` of anything), so only what the browser
 * loads reaches it: `server.fs.allow` folders and Vite's virtual modules. The rest is the app's.
 */
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { Connect } from 'vite'

const VIRTUAL_PREFIXES = ['/@vite/', '/@id/__x00__']
const VIRTUAL_PATHS = ['/@react-refresh']
/** Same-origin only: any site the developer visits could send the browser there, with this Host. */
const OPEN_IN_EDITOR = '/__open-in-editor'

/**
 * Decoded once, as Vite decodes (`%2F` too, so an encoded slash cannot hide a folder). Undefined
 * for what Vite must not read (a malformed escape, a backslash, a NUL).
 */
export function targetPath(target: string): string | undefined {
  const end = target.search(/[?#]/)
  const raw = end === -1 ? target : target.slice(0, end)
  if (!raw.startsWith('/')) return undefined
  let decoded: string
  try {
    decoded = decodeURIComponent(raw)
  } catch {
    return undefined
  }
  if (/[\\\0]/.test(decoded)) return undefined
  return path.posix.normalize(decoded)
}

export function servedByVite(target: string, root: string, allowed: readonly string[], fetchSite?: string): boolean {
  const pathname = targetPath(target)
  if (pathname === undefined) return false
  if (pathname === OPEN_IN_EDITOR) return fetchSite === 'same-origin'
  if (VIRTUAL_PATHS.includes(pathname) || VIRTUAL_PREFIXES.some((prefix) => pathname.startsWith(prefix))) return true
  const file = pathname.startsWith('/@fs/') ? pathname.slice('/@fs'.length) : path.join(root, pathname)
  return allowed.some((folder) => file.startsWith(folder + path.sep))
}

/** @fastify/vite mounts Vite through the app's `use` when there is one: this one filters it. */
export function mountViteFiltered(fastify: FastifyInstance, root: string, allowed: () => readonly string[]): void {
  let vite: Connect.Server | undefined
  fastify.decorate('use', function use(middleware: Connect.Server) {
    vite = middleware
  })
  fastify.addHook('onRequest', function serveViteModules(request, reply, done) {
    const url = request.raw.url ?? '/'
    const fetchSite = request.headers['sec-fetch-site']
    if (!vite || !servedByVite(url, root, allowed(), typeof fetchSite === 'string' ? fetchSite : undefined)) return done()
    // An answer written by Vite never comes back here, as with @fastify/middie.
    vite(request.raw, reply.raw, (error?: unknown) => done(error as Error | undefined))
  })
}
