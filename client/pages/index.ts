/**
 * One dynamic import per route: the build turns each into its own chunk, and the
 * type checker holds each page to its route's data type.
 */
import type { AppRoutes } from '../../shared/routes.js'
import type { PageImports } from '../framework/page-module.js'

export const pages: PageImports<AppRoutes> = {
  home: () => import('./home.js'),
  items: () => import('./items.js'),
  about: () => import('./about.js'),
  contact: () => import('./contact.js'),
}
