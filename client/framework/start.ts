/** The browser entry's door; pages and layouts import index.ts instead. */
export { startClient } from './browser/start.js'
