/** The production application: the route table, and both sides of every route. */
import { RootLayout } from '../../client/layouts/root.js'
import { pages as clientPages } from '../../client/pages/index.js'
import { router, type AppRoutes } from '../../shared/routes.js'
import type { AppDefinition } from '../page-definition.js'
import about from './about.js'
import contact from './contact.js'
import home from './home.js'
import items from './items.js'

export const appDefinition: AppDefinition<AppRoutes> = {
  router,
  serverPages: { home, items, about, contact },
  clientPages,
  layout: RootLayout,
}
