/**
 * The browser's side of a product (client/application.ts): what `startClient` hydrates
 * and what the server renders. Pages are found by name: `page(id)` is the product's own
 * `import(\`./pages/${id}.tsx\`)`, which every bundler here turns into one chunk per file.
 */
import type { LayoutTable, RouteTable, Router } from '../../shared/framework/route-table.js'
import type { LayoutModules, PageImports, PageModule } from './page-module.js'

export interface ClientApplication<Table extends RouteTable, Layouts extends LayoutTable> {
  readonly router: Router<Table, Layouts>
  /** Imports a route's page module by its id (the module says which route it is for). */
  readonly page: (id: string) => Promise<{ default?: unknown }>
  /** Each route's import, by id. */
  readonly pages: PageImports<Table>
  readonly layouts: LayoutModules<Layouts>
}

export function defineClientApp<Table extends RouteTable, Layouts extends LayoutTable>(app: {
  readonly router: Router<Table, Layouts>
  readonly page: (id: string) => Promise<{ default?: unknown }>
  readonly layouts: LayoutModules<Layouts>
}): ClientApplication<Table, Layouts> {
  const pages = Object.fromEntries(
    Object.keys(app.router.routes).map((id) => [id, () => app.page(id) as Promise<{ default: PageModule<any> }>]),
  ) as PageImports<Table>
  return { ...app, pages }
}
