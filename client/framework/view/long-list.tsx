import { Suspense, type ReactNode } from 'react'

/** About 5,000 pieces of HTML for a row of four cells, well under V8's 16,384 large-object threshold. */
export const LONG_LIST_GROUP_SIZE = 250

export interface LongListProps<Item> {
  readonly items: readonly Item[]
  readonly children: (item: Item) => ReactNode
  readonly groupSize?: number
}

/**
 * A list whose server render costs the same per item at 20 items or 20,000: groups, each
 * its own Suspense boundary, where React's server renderer starts a new segment. A segment
 * past 16,384 pieces moves to V8's large-object space, where a 2,000-row table cost a
 * third more per row (docs/performance.md). Keys compare within a group: an item moved to
 * another group is mounted afresh. A boundary leaves only two HTML comments, so `tbody > tr` still matches.
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
