/**
 * The server's side of the product: each route's loader and actions (server/pages/<route
 * id>.ts), the layouts' loaders and actions, and the /api routes. Adding a page takes a
 * route in shared/routes.ts and its two modules, client/pages/<id>.tsx and
 * server/pages/<id>.ts; the start stops with the name of a missing or stray file.
 */
import { clientApp } from '../client/application.js'
import health from './api/health.js'
import { config } from './config.js'
import { defineServerApp } from './framework/index.js'
import account from './layouts/account.js'
import items from './layouts/items.js'
import root from './layouts/root.js'

export const application = await defineServerApp({
  client: clientApp,
  page: (id) => import(`./pages/${id}.ts`),
  layouts: { root, items, account },
  api: [health],
  config,
})
