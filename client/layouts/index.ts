/**
 * Every layout's client module, by id. Imported with the entry (a layout is around
 * many pages, and small): checked against the layout table.
 */
import type { AppLayouts } from '../../shared/routes.js'
import type { LayoutModules } from '../framework/page-module.js'
import items from './items.js'
import root from './root.js'

export const layouts: LayoutModules<AppLayouts> = { root, items }
