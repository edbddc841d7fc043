import type { ReadyPage } from './page-source.js'

export const NOT_FOUND_TITLE = 'Page not found'
export const ERROR_TITLE = 'Application error'

/** The document title of a page; the server writes it into `<title>`, the client follows it. */
export function titleOf(page: ReadyPage): string {
  const { payload, module } = page
  if (payload.kind === 'page' && module) return module.title(payload.data as never, payload.params as never)
  if (payload.kind === 'not-found') return NOT_FOUND_TITLE
  return ERROR_TITLE
}
