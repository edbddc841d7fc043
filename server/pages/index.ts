/** The production application: the route and layout tables, and both sides of every route and layout. */
import { layouts as clientLayouts } from '../../client/layouts/index.js'
import { pages as clientPages } from '../../client/pages/index.js'
import { router, type AppLayouts, type AppRoutes } from '../../shared/routes.js'
import { serverLayouts } from '../layouts/index.js'
import type { AppDefinition } from '../framework/page-definition.js'
import about from './about.js'
import contact from './contact.js'
import home from './home.js'
import items from './items.js'

export const appDefinition: AppDefinition<AppRoutes, AppLayouts> = {
  router,
  serverPages: { home, items, about, contact },
  clientPages,
  serverLayouts,
  clientLayouts,
}
