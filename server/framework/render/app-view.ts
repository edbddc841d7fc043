/**
 * The application's pages and the functions that render them. Production builds it once;
 * in development Vite's module runner reloads them after every edit, so the page handlers
 * ask for the view per request instead of importing it (server/framework/development/).
 */
import type { AnyAppDefinition } from '../page-definition.js'
import { renderStream, renderWhole } from './render-page.js'

export interface PageRenderer {
  readonly renderWhole: typeof renderWhole
  readonly renderStream: typeof renderStream
}

export interface AppView {
  readonly definition: AnyAppDefinition
  readonly renderer: PageRenderer
}

export function appView(definition: AnyAppDefinition): AppView {
  return { definition, renderer: { renderWhole, renderStream } }
}
