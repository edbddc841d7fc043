/**
 * `npm run dev` (docs/architecture.md, "Stack", "Known pitfalls"): the production app, with Vite serving the browser's
 * modules (HMR, React Fast Refresh, the error overlay) through @fastify/vite at the
 * root context, and Vite's module runner loading the server's React side (the page
 * modules and the renderer, ssr-entry.ts), fresh after every edit. Everything else is
 * the same Fastify app: same plugins, routes, /api and /monitoring.
 *
 * Only scripts/dev-server.ts imports this folder, so production neither bundles nor
 * loads vite, and does not need it installed.
 */
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { BuildManifest } from '../../../shared/framework/build-manifest.js'
import type { DevelopmentMode } from '../app.js'
import type { AppView } from '../render/app-view.js'
import { logRequests } from './request-log.js'

/** What the document loads in development instead of the built, hashed files. */
function developmentManifest(routeIds: readonly string[], preamble: string): BuildManifest {
  return {
    // A new id per process: after a restart, the client's next navigation loads the whole document.
    buildId: `dev-${Date.now().toString(36)}`,
    entry: { file: '/client/entry.tsx', imports: [] },
    // Linked as well as imported by the entry (where Vite hot-swaps it): no flash of unstyled HTML.
    css: ['/client/styles.css'],
    routes: Object.fromEntries(routeIds.map((id) => [id, { file: `/client/pages/${id}.tsx`, imports: [] }])),
    devScripts: ["import '/@vite/client'", preamble],
  }
}

/**
 * Prepares development mode for `buildApp`: `root` is the project folder (where
 * vite.config.ts is), `routeIds` the route table's ids (each has client/pages/<id>.tsx).
 */
export async function prepareDevelopment(root: string, routeIds: readonly string[]): Promise<DevelopmentMode> {
  const [{ default: fastifyVite }, { default: react }] = await Promise.all([import('@fastify/vite'), import('@vitejs/plugin-react')])
  let entries: FastifyInstance['vite']['entries']

  const plugin = fp(
    async function viteDevelopmentServer(fastify: FastifyInstance) {
      await fastify.register(fastifyVite, { root, dev: true })
      await fastify.vite.ready()
      entries = fastify.vite.entries
    },
    { name: 'vite-development-server' },
  )

  function view(): AppView {
    // @fastify/vite re-imports the entry before every request (a cheap cache hit unless a file changed).
    const current = entries?.ssr?.view as AppView | undefined
    if (!current) throw new Error('Vite has not loaded server/framework/development/ssr-entry.ts')
    return current
  }

  return { plugin, manifest: developmentManifest(routeIds, react.preambleCode.replace('__BASE__', '/')), view, logRequests }
}
