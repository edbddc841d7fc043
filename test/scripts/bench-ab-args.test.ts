/**
 * The A/B bench's command line (scripts/bench/ab-args.ts): without `--against` the
 * full bench runs; with it, the rounds, the figures and each side's settings chosen, and
 * what it refuses.
 */
import t from 'tap'
import { AB_FIGURES, parseAbArgs } from '../../scripts/bench/ab-args.js'

t.test('no --against: the full bench', async (t) => {
  t.equal(parseAbArgs([]), undefined)
})

t.test('--against alone: three rounds of every figure', async (t) => {
  t.same(parseAbArgs(['--against', '5c9113e']), {
    against: '5c9113e',
    rounds: 3,
    figures: AB_FIGURES.map((f) => f.name),
    env: [{}, {}],
  })
})

t.test('--rounds and --only, the figures in their own order', async (t) => {
  t.same(parseAbArgs(['--against', 'main~2', '--rounds', '5', '--only', '/_data/items/7', '--only', '/items/7']), {
    against: 'main~2',
    rounds: 5,
    figures: ['/items/7', '/_data/items/7'],
    env: [{}, {}],
  })
})

t.test('--env-a and --env-b: settings for one side only, a value may hold `=`', async (t) => {
  const options = parseAbArgs(['--against', 'HEAD', '--env-b', 'METRICS_PORT=0', '--env-b', 'X=a=b', '--env-a', 'SERVER_TIMING=on'])
  t.same(options?.env, [{ SERVER_TIMING: 'on' }, { METRICS_PORT: '0', X: 'a=b' }])
})

t.test('refused: a figure not measured, rounds not a whole number, options without --against, unknown options', async (t) => {
  t.throws(() => parseAbArgs(['--against', 'x', '--only', '/contact']), /no figure \/contact/)
  for (const rounds of ['0', '2.5', 'three', '51']) t.throws(() => parseAbArgs(['--against', 'x', '--rounds', rounds]), /--rounds/)
  t.throws(() => parseAbArgs(['--rounds', '3']), /need --against/)
  t.throws(() => parseAbArgs(['--env-b', 'METRICS_PORT=0']), /need --against/)
  for (const setting of ['METRICS_PORT', '=0']) t.throws(() => parseAbArgs(['--against', 'x', '--env-b', setting]), /NAME=VALUE/)
  t.throws(() => parseAbArgs(['--against', '']), /needs a git ref/)
  t.throws(() => parseAbArgs(['--against', 'x', '--seconds', '2']))
})
