/**
 * What a page puts into the document's `<head>` besides its title: a description, a
 * canonical URL, robots rules and Open Graph entries. One list of tags for both sides:
 * the server writes them (escaped) into the HTML, the browser replaces the previous
 * page's with them after a client navigation, never adding to them. Every such tag
 * carries `data-head`, so the browser knows which tags are the page's.
 */

export interface HeadEntries {
  /** `<meta name="description">`: what search results and link previews show. */
  readonly description?: string
  /** `<link rel="canonical">`: the one URL of this page (a path on this site, or absolute). */
  readonly canonical?: string
  /** `<meta name="robots">`: `noindex`, `nofollow`, ... */
  readonly robots?: string
  /** `<meta property="og:...">` for link previews. */
  readonly openGraph?: {
    readonly title?: string
    readonly description?: string
    readonly type?: string
    readonly url?: string
    readonly image?: string
  }
}

/** One tag of the head: its element and attributes, in the order they are written. */
export interface HeadTag {
  readonly tag: 'meta' | 'link'
  readonly attributes: Readonly<Record<string, string>>
}

/** The attribute every page-owned head tag carries. */
export const HEAD_MARKER = 'data-head'

/**
 * Entries from further out first (the root layout's), nearer ones replacing theirs key
 * by key (Open Graph's too). An entry given as `undefined` removes the one from further out.
 */
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
