/**
 * What Vite's module runner loads in development: re-executed after an edit to anything it imports,
 * so the next request's markup matches what the browser hot-swapped.
 */
import { application } from '../../application.js'
import { appView } from '../render/app-view.js'

export const view = appView(application.definition)
