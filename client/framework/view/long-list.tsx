import { Suspense, type ReactNode } from 'react'

/**
 * Items per group: about 5,000 pieces of HTML for a row of four cells, well under the
 * 16,384 where V8 moves an array to its large-object space. A row of more than about a
 * dozen cells, or deeply nested, wants a smaller `groupSize`.
 */
export const LONG_LIST_GROUP_SIZE = 250

export interface LongListProps<Item> {
  readonly items: readonly Item[]
  /** One item's element, with its key, as in `items.map(...)` (called with the item only). */
  readonly children: (item: Item) => ReactNode
  readonly groupSize?: number
}

/**
 * A list of any length whose server render costs the same per item at 20 items or at
 * 20,000: the items go in groups, each in its own Suspense boundary (nothing suspends;
 * a boundary is only where React's server renderer starts a new segment).
 *
 * Why: React's server renderer keeps a segment's HTML as one array of pieces (about
 * twenty per table row) until the segment is written out. Past 16,384 pieces the array
 * no longer fits V8's ordinary heap pages and moves to its large-object space, where
 * every growth maps and faults in fresh memory: rendering a 2,000-row table cost a third
 * more per row than a 200-row one (docs/performance.md). A segment per group keeps every
 * array small.
 *
 * In the browser, React hydrates a server-rendered boundary after the page's first
 * commit, at idle priority, or at once if someone interacts inside it: a long list does
 * not hold up the rest of the page becoming interactive. Rendered whole (the default),
 * the elements are the same with or without the groups (a boundary leaves only two HTML
 * comments), so selectors such as `tbody > tr` still match; on a route with
 * `stream: true`, React may send a large group after the shell, shown by an inline
 * script as it arrives.
 *
 * Keys are compared within a group: an item that moves to another group (one inserted
 * before it, a new sort order) is mounted afresh there, its state and focus lost, as
 * an element moved to another parent would be.
 */
export function LongList<Item>({ items, children, groupSize = LONG_LIST_GROUP_SIZE }: LongListProps<Item>): ReactNode {
  if (!(Number.isInteger(groupSize) && groupSize > 0)) throw new RangeError(`LongList: groupSize must be a positive integer, not ${groupSize}`)
  const groups: ReactNode[] = []
  for (let start = 0; start < items.length; start += groupSize) {
    // Keyed by position: the next page's list of the same length reuses the groups.
    groups.push(<Suspense key={start}>{items.slice(start, start + groupSize).map((item) => children(item))}</Suspense>)
  }
  return groups
}
