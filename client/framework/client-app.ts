/**
 * The browser's side of a product (client/application.ts). `page(id)` is the product's
 * own `import(\`./pages/${id}.tsx\`)`, which every bundler here turns into one chunk per file.
 */
import type { LayoutTable, RouteTable, Router } from '../../shared/framework/route-table.js'
import type { LayoutModules, PageImports, PageModule } from './page-module.js'

export interface ClientApplication<Table extends RouteTable, Layouts extends LayoutTable> {
  readonly router: Router<Table, Layouts>
  readonly page: (id: string) => Promise<{ default?: unknown }>
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
