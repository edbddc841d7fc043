/**
 * The test builds' keeping (test/helpers/build.ts), with a stand-in for the build: made
 * once and then reused, two processes making the same one at once both get a whole
 * one, a failure leaves nothing, and old builds of the kind are removed when a new one
 * is made. Each kind has a key of its own.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync, existsSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import { buildKey, cachedFolder } from '../helpers/build.js'

function cacheDir(t: Test): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'test-builds-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** A stand-in build: writes one file, after `wait` resolves; counts its runs. */
function fakeBuild(content: string, wait: Promise<unknown> = Promise.resolve()) {
  const made = { count: 0 }
  const make = async (dir: string) => {
    made.count++
    await wait
    writeFileSync(path.join(dir, 'out.txt'), content)
  }
  return { made, make }
}

t.test('made once, then reused as it is', async (t) => {
  const cache = cacheDir(t)
  const { made, make } = fakeBuild('one')
  const first = await cachedFolder(cache, 'app-1', make)
  t.equal(first.made, true)
  t.equal(readFileSync(path.join(first.dir, 'out.txt'), 'utf8'), 'one')
  const second = await cachedFolder(cache, 'app-1', make)
  t.same(second, { dir: first.dir, made: false }, 'the same folder, not made again')
  t.equal(made.count, 1)
  t.same(readdirSync(cache), ['app-1'], 'no temporary folder left')
})

t.test('two at once: each gets the whole build, one is kept', async (t) => {
  const cache = cacheDir(t)
  let release!: () => void
  const both = new Promise<void>((resolve) => (release = resolve))
  const a = fakeBuild('a', both)
  const b = fakeBuild('b', both)
  const results = Promise.all([cachedFolder(cache, 'app-1', a.make), cachedFolder(cache, 'app-1', b.make)])
  release()
  const [first, second] = await results
  t.equal(first.dir, second.dir)
  t.same([first.made, second.made].sort(), [false, true], 'one was renamed into place, the other dropped')
  t.match(readFileSync(path.join(first.dir, 'out.txt'), 'utf8'), /^[ab]$/, 'a whole build')
  t.same(readdirSync(cache), ['app-1'], 'the dropped one is removed')
})

t.test('a build that fails leaves nothing behind, and is tried again next time', async (t) => {
  const cache = cacheDir(t)
  await t.rejects(
    cachedFolder(cache, 'app-1', async (dir) => {
      writeFileSync(path.join(dir, 'half.txt'), 'half')
      throw new Error('the build broke')
    }),
    /the build broke/,
  )
  t.same(readdirSync(cache), [])
  const { make } = fakeBuild('fixed')
  t.equal((await cachedFolder(cache, 'app-1', make)).made, true)
})

t.test('a new build of a kind removes those unused for an hour, of that kind only', async (t) => {
  const cache = cacheDir(t)
  const hoursAgo = (hours: number) => new Date(Date.now() - hours * 60 * 60 * 1000)
  const old = (name: string, hours: number) => {
    mkdirSync(path.join(cache, name))
    utimesSync(path.join(cache, name), hoursAgo(hours), hoursAgo(hours))
  }
  old('app-old', 2)
  old('app-recent', 0.5)
  old('fixture-old', 2)
  old('app-markup-old', 2) // another kind, whose name starts with this one's
  old('.tmp-app-killed', 2)
  const { make } = fakeBuild('new')
  await cachedFolder(cache, 'app-new', make)
  t.same(readdirSync(cache).sort(), ['app-markup-old', 'app-new', 'app-recent', 'fixture-old'])
})

t.test('using a build marks it used, so another kind of clean-up keeps it', async (t) => {
  const cache = cacheDir(t)
  const { make } = fakeBuild('one')
  const { dir } = await cachedFolder(cache, 'app-1', make)
  const longAgo = new Date(Date.now() - 2 * 60 * 60 * 1000)
  utimesSync(dir, longAgo, longAgo)
  await cachedFolder(cache, 'app-1', make)
  await cachedFolder(cache, 'app-2', fakeBuild('two').make)
  t.ok(existsSync(dir), 'used just now: kept')
})

t.test('the key: one per kind, the same while the files are', async (t) => {
  t.equal(buildKey('production'), buildKey('production'))
  t.not(buildKey('production'), buildKey('deployed'), 'the same files, built another way')
  t.not(buildKey('production'), buildKey('fixture'))
  t.not(buildKey('production'), buildKey('production-markup'))
  t.match(buildKey('dist'), /^[0-9a-f]{16}$/)
})
