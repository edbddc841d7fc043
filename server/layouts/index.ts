/** The server side of the application's layouts that have data or actions. */
import type { AppLayouts } from '../../shared/routes.js'
import type { ServerLayouts } from '../framework/page-definition.js'
import items from './items.js'
import root from './root.js'

export const serverLayouts: ServerLayouts<AppLayouts> = { root, items }
