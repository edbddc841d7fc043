/**
 * The browser's side of the product: the route table, each route's page module
 * (client/pages/<route id>.tsx, one chunk each, loaded when first shown) and every
 * layout (small, around many pages: loaded with the entry). The server renders the same
 * modules (server/application.ts), and checks at start that every route has its file.
 */
import { router } from '../shared/routes.js'
import { defineClientApp } from './framework/index.js'
import account from './layouts/account.js'
import items from './layouts/items.js'
import root from './layouts/root.js'

export const clientApp = defineClientApp({
  router,
  page: (id) => import(`./pages/${id}.tsx`),
  layouts: { root, items, account },
})
