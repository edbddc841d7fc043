/**
 * The browser entry's door: hydrates the product (client/application.ts) and starts
 * client navigation. Browser-only: pages and layouts import client/framework/index.ts.
 */
export { startClient } from './browser/start.js'
