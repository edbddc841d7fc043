/**
 * Which requests `npm run dev` hands to Vite (docs/decisions/028-development-serves-what-the-browser-needs.md).
 * Vite serves any file under the project by its path (/server/main.ts,
 * /package.json, /README.md, `?raw` of anything), where production answers 404. Only
 * what the browser loads reaches it: modules and files in the folders that
 * vite.config.ts allows (`server.fs.allow`: client/, shared/, the pre-bundled deps,
 * node_modules), by their root path or Vite's `/@fs/`, and Vite's own virtual modules.
 * Every other request is the app's, answered as in production (a page, /api, the
 * not-found page).
 */
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { Connect } from 'vite'

/** Vite's modules that are no file: its client, the env, React Refresh's runtime, plugins' virtual modules. */
const VIRTUAL_PREFIXES = ['/@vite/', '/@id/__x00__']
/** Exact paths: React Refresh's runtime. */
const VIRTUAL_PATHS = ['/@react-refresh']
/**
 * The overlay's link that opens a file in the developer's editor: only from a page of
 * this origin. Any site the developer visits could send the browser there, and the
 * Host would be this one.
 */
const OPEN_IN_EDITOR = '/__open-in-editor'

/**
 * The path a request target names, as Vite reads it: decoded (once, as Vite decodes;
 * `%2F` too, so an encoded slash cannot hide a folder), dot segments resolved.
 * Undefined for what Vite must not read (a malformed escape, a backslash, a NUL) or
 * for a target that is no path.
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

/**
 * Whether Vite gets the request for `target`: `root` is the project, `allowed` Vite's
 * `server.fs.allow`, `fetchSite` the request's Sec-Fetch-Site header.
 */
export function servedByVite(target: string, root: string, allowed: readonly string[], fetchSite?: string): boolean {
  const pathname = targetPath(target)
  if (pathname === undefined) return false
  if (pathname === OPEN_IN_EDITOR) return fetchSite === 'same-origin'
  if (VIRTUAL_PATHS.includes(pathname) || VIRTUAL_PREFIXES.some((prefix) => pathname.startsWith(prefix))) return true
  const file = pathname.startsWith('/@fs/') ? pathname.slice('/@fs'.length) : path.join(root, pathname)
  return allowed.some((folder) => file.startsWith(folder + path.sep))
}

/**
 * Mounts Vite's middleware for @fastify/vite, which mounts it through the app's `use`
 * when there is one: this one runs it in front of the app only for the requests above.
 * What Vite does not answer goes on to the app's routes.
 */
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
