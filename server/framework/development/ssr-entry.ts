/**
 * What Vite's module runner loads in development (vite.config.ts names it): the React
 * side of the server, that is the application's pages and the functions that render
 * them. The runner re-executes it after an edit to anything it imports, so the next
 * request renders the edited page (and its markup matches what the browser hot-swapped).
 */
import { appDefinition } from '../../pages/index.js'
import { appView } from '../render/app-view.js'

export const view = appView(appDefinition)
