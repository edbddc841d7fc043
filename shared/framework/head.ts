/**
 * What a page puts into `<head>` besides its title. The browser replaces the previous
 * page's tags after a navigation, never adding to them; `data-head` tells it which are the page's.
 */

export interface HeadEntries {
  /** What search results and link previews show. */
  readonly description?: string
  /** A path on this site, or absolute. */
  readonly canonical?: string
  readonly robots?: string
  readonly openGraph?: {
    readonly title?: string
    readonly description?: string
    readonly type?: string
    readonly url?: string
    readonly image?: string
  }
}

/** Attributes in the order they are written. */
export interface HeadTag {
  readonly tag: 'meta' | 'link'
  readonly attributes: Readonly<Record<string, string>>
}

export const HEAD_MARKER = 'data-head'

/** Nearer entries replace further-out ones key by key (Open Graph's too); `undefined` removes one. */
export function mergeHeadEntries(list: readonly HeadEntries[]): HeadEntries {
  const merged: Record<string, unknown> = {}
  for (const entries of list) {
    for (const [key, value] of Object.entries(entries)) {
      if (value === undefined) delete merged[key]
      else if (key === 'openGraph') merged[key] = { ...(merged[key] as object | undefined), ...(value as object) }
      else merged[key] = value
    }
  }
  return merged as HeadEntries
}

export function headTags(entries: HeadEntries): HeadTag[] {
  const tags: HeadTag[] = []
  if (entries.description !== undefined) tags.push({ tag: 'meta', attributes: { name: 'description', content: entries.description } })
  if (entries.canonical !== undefined) tags.push({ tag: 'link', attributes: { rel: 'canonical', href: entries.canonical } })
  if (entries.robots !== undefined) tags.push({ tag: 'meta', attributes: { name: 'robots', content: entries.robots } })
  for (const [key, value] of Object.entries(entries.openGraph ?? {})) {
    if (value !== undefined) tags.push({ tag: 'meta', attributes: { property: `og:${key}`, content: value } })
  }
  return tags
}
