/** The deferred parts' reader, loaded for such pages only (a document's, or page data that streams). */
export type { StreamedParts } from './deferred-parts.js'

export const deferredPartsModule = () => import('./deferred-parts.js')
