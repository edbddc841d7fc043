/**
 * LongList rendered by React's server renderer: the items in order, in groups of the
 * group size, each group a Suspense boundary (its own segment, so no array of pieces
 * grows past V8's large-object size), nothing at all for no items.
 */
import t from 'tap'
import { createElement } from 'react'
import { renderToString } from 'react-dom/server'
import { LongList } from '../../client/framework/view/long-list.js'

const html = (count: number, groupSize?: number) =>
  renderToString(
    createElement(
      'ul',
      null,
      createElement(LongList<number>, {
        items: Array.from({ length: count }, (_, i) => i),
        ...(groupSize === undefined ? {} : { groupSize }),
        children: (n: number) => createElement('li', { key: n }, n),
      }),
    ),
  )

const boundaries = (markup: string) => markup.split('<!--$-->').length - 1

t.test('items go out in order, a boundary per group', async (t) => {
  for (const [count, groupSize, groups] of [
    [1, 3, 1],
    [3, 3, 1],
    [4, 3, 2],
    [10, 3, 4],
    [600, undefined, 3],
  ] as const) {
    const markup = html(count, groupSize)
    t.equal(boundaries(markup), groups, `${count} items in groups of ${groupSize ?? 'the default'}: ${groups} boundaries`)
    t.same(
      [...markup.matchAll(/<li>(\d+)<\/li>/g)].map((match) => Number(match[1])),
      Array.from({ length: count }, (_, i) => i),
    )
  }
})

t.test('no items: no boundary, no element', async (t) => {
  t.equal(html(0), '<ul></ul>')
})

t.test('a group size that is not a positive integer is refused by name', async (t) => {
  for (const groupSize of [0, 0.5, -1, Number.NaN, Infinity]) t.throws(() => html(5, groupSize), /LongList: groupSize must be a positive integer/)
})
