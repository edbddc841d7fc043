/**
 * The React side of the server as one value: the application's pages (loaders and
 * components) and the functions that render them. Production builds it once from the
 * bundle's own modules. In development (`npm run dev`) Vite's module runner loads the
 * same modules, fresh after every edit, so the page handlers asks for the view once
 * per request instead of importing it (server/framework/development/).
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
