/**
 * What Vite's module runner loads in development (vite.config.ts names it): the React
 * side of the server, that is the application's pages and the functions that render
 * them. The runner re-executes it after an edit to anything it imports, so the next
 * request renders the edited page (and its markup matches what the browser hot-swapped).
 */
import { application } from '../../application.js'
import { appView } from '../render/app-view.js'

// The product's server side, by the convention that names its files (server/application.ts).
export const view = appView(application.definition)
