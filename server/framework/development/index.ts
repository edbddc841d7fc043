/**
 * `npm run dev` (docs/architecture.md, "Stack", "Known pitfalls"): the production app, with Vite serving
 * the browser's modules and loading the server's React side fresh after every edit.
 * Only scripts/dev-server.ts imports this folder, so production does not need vite installed.
 */
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import path from 'node:path'
import type { BuildManifest } from '../../../shared/framework/build-manifest.js'
import type { DevelopmentMode } from '../app.js'
import type { AppView } from '../render/app-view.js'
import { requestKindOf } from '../request-kinds.js'
import { sendLoadFailure } from './load-failure.js'
import { logRequests } from './request-log.js'
import { viewLoader, type ViewLoader } from './view-loader.js'
import { mountViteFiltered } from './vite-requests.js'

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

/** `root` is where vite.config.ts is; each of `routeIds` has client/pages/<id>.tsx. */
export async function prepareDevelopment(root: string, routeIds: readonly string[]): Promise<DevelopmentMode> {
  const [{ default: fastifyVite }, { default: react }, { isRunnableDevEnvironment }] = await Promise.all([
    import('@fastify/vite'),
    import('@vitejs/plugin-react'),
    import('vite'),
  ])
  const manifest = developmentManifest(routeIds, react.preambleCode.replace('__BASE__', '/'))
  let loader: ViewLoader | undefined

  const plugin = fp(
    async function viteDevelopmentServer(fastify: FastifyInstance) {
      // Vite's config and environments are read when needed: Vite replaces them when it restarts itself.
      mountViteFiltered(fastify, root, () => fastify.vite.devServer?.config.server.fs.allow ?? [])
      await fastify.register(fastifyVite, { root, dev: true })
      await fastify.vite.ready()
      // No server entry in vite.config.ts: @fastify/vite would import it before every request, and a
      // page that fails to load would fail them all. Only the requests that render a page load it.
      const runner = () => {
        const ssr = fastify.vite.devServer?.environments.ssr
        if (!ssr || !isRunnableDevEnvironment(ssr)) throw new Error("Vite's ssr environment has no module runner")
        return ssr.runner
      }
      const pages = viewLoader(runner, path.join(root, 'server/framework/development/ssr-entry.ts'))
      loader = pages
      await pages.load() // so the first page need not wait; a failure is shown by the first page request
      fastify.addHook('preHandler', async function loadPages(request, reply) {
        const kind = requestKindOf(request)
        if (kind !== 'page' && kind !== 'data' && kind !== 'action') return
        const loaded = await pages.load()
        if (!loaded.ok) return sendLoadFailure(request, reply, loaded.error, manifest.buildId)
      })
    },
    { name: 'vite-development-server' },
  )

  function view(): AppView {
    if (!loader) throw new Error('Vite has not started yet')
    return loader.current()
  }

  return { plugin, manifest, view, logRequests }
}
