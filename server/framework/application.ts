/**
 * The product as the server takes it (docs/architecture.md, "The product and the framework"). Every
 * module is loaded at start, and a route and its files that drift apart stop it, naming the file.
 */
import { readdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyPluginAsync } from 'fastify'
import type { LayoutTable, RouteTable } from '../../shared/framework/route-table.js'
import type { ClientApplication } from '../../client/framework/client-app.js'
import { routeOfPage, type PageModule } from '../../client/framework/page-module.js'
import type { ProductConfig } from './config/product.js'
import type { Variable } from './config/variables.js'
import { routeOfServerPage, type AppDefinition, type ServerLayouts, type ServerPage, type ServerPages } from './page-definition.js'

export interface Application<Table extends RouteTable = any, Layouts extends LayoutTable = any> {
  readonly definition: AppDefinition<Table, Layouts>
  readonly apiRoutes: readonly FastifyPluginAsync[]
  /** The product's own environment variables, read at start with the framework's. */
  readonly configVariables: readonly Variable[]
}

/** From the project's root: the names the messages give. */
export const PAGE_FILES = {
  server: (id: string) => `server/pages/${id}.ts`,
  client: (id: string) => `client/pages/${id}.tsx`,
} as const

export interface ServerApplication<Table extends RouteTable, Layouts extends LayoutTable> {
  readonly client: ClientApplication<Table, Layouts>
  /** `(id) => import(\`./pages/${id}.ts\`)`: each route's loader and actions, named after its id. */
  readonly page: (id: string) => Promise<{ default?: unknown }>
  readonly layouts: ServerLayouts<Layouts>
  readonly api: readonly FastifyPluginAsync[]
  /** The product's environment variables (`defineConfig`); none when left out. */
  readonly config?: ProductConfig
}

export class ApplicationError extends Error {
  override name = 'ApplicationError'
}

/** Throws an ApplicationError naming the file when one is missing, stray or declared for another route. */
export async function defineServerApp<Table extends RouteTable, Layouts extends LayoutTable>(
  product: ServerApplication<Table, Layouts>,
): Promise<Application<Table, Layouts>> {
  const { router } = product.client
  const ids = Object.keys(router.routes)
  const serverPages: Record<string, ServerPage<any>> = {}
  for (const id of ids) {
    const module = await loadPage(product.page, id, PAGE_FILES.server(id), 'export default defineServerPage')
    if (routeOfServerPage(module as ServerPage<any>) !== router.routes[id]) {
      throw new ApplicationError(`${PAGE_FILES.server(id)} must declare its own route: export default defineServerPage(routes['${id}'], ...)`)
    }
    serverPages[id] = module as ServerPage<any>
  }
  for (const id of ids) {
    const module = await loadPage(product.client.page, id, PAGE_FILES.client(id), 'export default definePage')
    if (routeOfPage(module as PageModule<any>) !== router.routes[id]) {
      throw new ApplicationError(`${PAGE_FILES.client(id)} must declare its own route: export default definePage(routes['${id}'], ...)`)
    }
  }
  checkNoStrayPages(ids)
  return {
    definition: {
      router,
      serverPages: serverPages as ServerPages<Table>,
      clientPages: product.client.pages,
      serverLayouts: product.layouts,
      clientLayouts: product.client.layouts,
    },
    apiRoutes: product.api,
    configVariables: product.config?.variables ?? [],
  }
}

async function loadPage(load: (id: string) => Promise<{ default?: unknown }>, id: string, file: string, shape: string): Promise<unknown> {
  let module: { default?: unknown }
  try {
    module = await load(id)
  } catch (error) {
    if (!isMissingModule(error)) throw error
    throw new ApplicationError(`The route "${id}" has no module ${file}: add it (${shape}(routes['${id}'], ...)).`)
  }
  if (!module.default) throw new ApplicationError(`${file} has no default export: ${shape}(routes['${id}'], ...).`)
  return module.default
}

/** Node's, Vite's and esbuild's words for an import of a file that is not there. */
function isMissingModule(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  const code = (error as { code?: unknown }).code
  return (
    code === 'ERR_MODULE_NOT_FOUND' ||
    /Unknown variable dynamic import|Module not found in bundle|Failed to load url|Cannot find module/.test(error.message)
  )
}

/** Two folders up from here in the source and in dist/server/ alike. */
const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

/** Only where the source is: a deployed dist/ has none, and its build was checked. */
function checkNoStrayPages(ids: readonly string[]): void {
  const known = new Set(ids)
  for (const [side, fileOf] of Object.entries(PAGE_FILES)) {
    const dir = path.dirname(fileOf('x'))
    const extension = path.extname(fileOf('x'))
    let names: string[]
    try {
      names = readdirSync(path.join(projectRoot, dir))
    } catch {
      continue
    }
    for (const name of names) {
      if (!name.endsWith(extension)) continue
      const id = name.slice(0, -extension.length)
      if (!known.has(id)) {
        throw new ApplicationError(`${dir}/${name} is a ${side} page module without a route: add "${id}" to shared/routes.ts, or remove the file.`)
      }
    }
  }
}
