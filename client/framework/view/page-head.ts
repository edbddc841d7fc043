/** A page's `<head>`: its title, and the entries its module declares (shared/framework/head.ts). */
import { REFUSAL_TEXT } from '../../../shared/framework/error-texts.js'
import { HEAD_MARKER, headTags, mergeHeadEntries, type HeadEntries, type HeadTag } from '../../../shared/framework/head.js'
import type { ReadyPage } from './page-source.js'
import { framesOf, type LayoutSet } from './layout-tree.js'

export const NOT_FOUND_TITLE = 'Page not found'
export const ERROR_TITLE = 'Application error'

/** A client error says what it is, as its page does; a server error says no more than that it failed. */
export function titleOf(page: ReadyPage): string {
  const { payload, module } = page
  if (payload.kind === 'page' && module) return module.title(payload.data as never, payload.params as never)
  if (payload.kind === 'not-found') return NOT_FOUND_TITLE
  if (payload.kind === 'error' && payload.status < 500) return `${payload.status}: ${payload.message ?? REFUSAL_TEXT}`
  return ERROR_TITLE
}

/** Each entry replaces the same one from further out; not-found and error pages are not indexed. */
export function headTagsOf(page: ReadyPage, layouts: LayoutSet | null): HeadTag[] {
  const { payload, module } = page
  const entries: HeadEntries[] = []
  for (const { layout, module: layoutModule } of framesOf(payload, layouts)) {
    if (layoutModule.head) entries.push(layoutModule.head(payload.layouts?.[layout.id] as never))
  }
  if (payload.kind !== 'page') entries.push({ robots: 'noindex', canonical: undefined, openGraph: undefined })
  else if (module?.head) entries.push(module.head(payload.data as never, payload.params as never))
  return headTags(mergeHeadEntries(entries))
}

/** Tags already there as they should be (the server's, at hydration) are left alone. */
export function applyHeadTags(tags: readonly HeadTag[]): void {
  const wanted = tags.map(({ tag, attributes }) => {
    const element = document.createElement(tag)
    for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value)
    element.setAttribute(HEAD_MARKER, '')
    return element
  })
  const current = [...document.head.querySelectorAll(`[${HEAD_MARKER}]`)]
  if (current.length === wanted.length && current.every((element, i) => element.isEqualNode(wanted[i]!))) return
  for (const old of current) old.remove()
  document.head.append(...wanted)
}
