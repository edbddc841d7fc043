/**
 * The A/B bench's command line (scripts/bench/ab-args.ts): without `--against` the
 * full bench runs; with it, the rounds and the figures chosen, and what it refuses.
 */
import t from 'tap'
import { AB_FIGURES, parseAbArgs } from '../../scripts/bench/ab-args.js'

t.test('no --against: the full bench', async (t) => {
  t.equal(parseAbArgs([]), undefined)
})

t.test('--against alone: three rounds of every figure', async (t) => {
  t.same(parseAbArgs(['--against', '5c9113e']), { against: '5c9113e', rounds: 3, figures: AB_FIGURES.map((f) => f.name) })
})

t.test('--rounds and --only, the figures in their own order', async (t) => {
  t.same(parseAbArgs(['--against', 'main~2', '--rounds', '5', '--only', '/_data/items/7', '--only', '/items/7']), {
    against: 'main~2',
    rounds: 5,
    figures: ['/items/7', '/_data/items/7'],
  })
})

t.test('refused: a figure not measured, rounds not a whole number, options without --against, unknown options', async (t) => {
  t.throws(() => parseAbArgs(['--against', 'x', '--only', '/contact']), /no figure \/contact/)
  for (const rounds of ['0', '2.5', 'three', '51']) t.throws(() => parseAbArgs(['--against', 'x', '--rounds', rounds]), /--rounds/)
  t.throws(() => parseAbArgs(['--rounds', '3']), /need --against/)
  t.throws(() => parseAbArgs(['--against', '']), /needs a git ref/)
  t.throws(() => parseAbArgs(['--against', 'x', '--seconds', '2']))
})
