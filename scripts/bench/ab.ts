/**
 * `npm run bench -- --against <git ref>`: this checkout (B) against another commit (A),
 * on the same machine in the same minutes. This machine's speed drifts by tens of
 * percent within minutes, so two separate runs cannot show a 10% change; measured in
 * alternation, each round's B/A compares figures taken seconds apart.
 *
 * The ref is checked out in a temporary worktree (removed at the end, on Ctrl-C too),
 * with this checkout's node_modules when both lockfiles are the same, `npm ci` else;
 * both production builds are made and served side by side on CPU 0, autocannon on CPU 1.
 * After the warm-up of each URL on each server, every round loads each figure on both
 * (50 connections, BENCH_SECONDS), which one goes first alternating by round so that a
 * steady drift does not favour either side.
 */
import { execFileSync, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { median } from '../bench-navigation.js'
import { AB_FIGURES, type AbOptions } from './ab-args.js'
import { DURATION_S, load, warmUp } from './load.js'
import { projectRoot, startApp, stop, TASKSET } from './processes.js'

interface Side {
  readonly label: string
  readonly root: string
}

/** The ref's tree, ready to build: a detached worktree under the system's temp folder. */
function checkOut(ref: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-ab-'))
  execFileSync('git', ['worktree', 'add', '--detach', dir, ref], { cwd: projectRoot, stdio: 'inherit' })
  const lockfile = (root: string) => readFileSync(path.join(root, 'package-lock.json'), 'utf8')
  if (lockfile(dir) === lockfile(projectRoot)) symlinkSync(path.join(projectRoot, 'node_modules'), path.join(dir, 'node_modules'), 'dir')
  else execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' })
  return dir
}

function removeCheckout(dir: string): void {
  spawnSync('git', ['worktree', 'remove', '--force', dir], { cwd: projectRoot, stdio: 'inherit' })
  rmSync(dir, { recursive: true, force: true })
  spawnSync('git', ['worktree', 'prune'], { cwd: projectRoot })
}

/** A production build, made by the tree's own build script (the ref's may differ from ours). */
function build(side: Side): void {
  console.log(`building ${side.label} in ${side.root}`)
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts'], { cwd: side.root, stdio: ['ignore', 'ignore', 'inherit'] })
}

interface FigureResult {
  readonly name: string
  readonly a: number[]
  readonly b: number[]
  readonly errors: number
}

async function measure(options: AbOptions, origins: readonly [string, string]): Promise<FigureResult[]> {
  const figures = AB_FIGURES.filter((f) => options.figures.includes(f.name))
  await warmUp(figures.flatMap((f) => origins.map((origin) => origin + f.path)))
  const results = figures.map((f) => ({ name: f.name, a: [] as number[], b: [] as number[], errors: 0 }))
  for (let round = 0; round < options.rounds; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0]
    for (const [i, figure] of figures.entries()) {
      for (const side of order) {
        const measured = await load(origins[side] + figure.path, 50)
        results[i]![side === 0 ? 'a' : 'b'].push(measured.requestsPerSecond)
        results[i]!.errors += measured.errors
      }
      const r = results[i]!
      console.log(`  round ${round + 1} ${figure.name}: A ${r.a.at(-1)}, B ${r.b.at(-1)} req/s`)
    }
  }
  return results
}

const two = (value: number) => value.toFixed(2)

function report(options: AbOptions, results: readonly FigureResult[]): void {
  console.log(
    `\nA/B (A: ${options.against}, B: this checkout; ${TASKSET ? 'servers on CPU 0, load on CPU 1' : 'unpinned'}; c=50, ${DURATION_S} s per load, ${options.rounds} rounds):`,
  )
  const width = Math.max(...results.map((r) => r.name.length))
  for (const r of results) {
    const ratios = r.b.map((b, i) => b / r.a[i]!)
    const errors = r.errors > 0 ? `; ${r.errors} errors or non-2xx answers` : ''
    console.log(
      `  ${r.name.padEnd(width)}  A ${r.a.join(' / ')} (median ${median(r.a)})  B ${r.b.join(' / ')} (median ${median(r.b)})  ` +
        `B/A ${two(median(r.b) / median(r.a))} (rounds ${two(Math.min(...ratios))}-${two(Math.max(...ratios))})${errors}`,
    )
  }
}

export async function runAb(options: AbOptions): Promise<void> {
  const servers: ChildProcess[] = []
  let checkout: string | undefined
  const cleanUp = () => {
    for (const child of servers) if (child.exitCode === null) child.kill('SIGKILL')
    if (checkout) removeCheckout(checkout)
    checkout = undefined
  }
  const onSignal = () => {
    cleanUp()
    process.exit(130)
  }
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal)
  try {
    checkout = checkOut(options.against)
    const sides: [Side, Side] = [
      { label: `A (${options.against})`, root: checkout },
      { label: 'B (this checkout)', root: projectRoot },
    ]
    for (const side of sides) build(side)
    const apps = [await startApp({}, sides[0].root), await startApp({}, sides[1].root)] as const
    servers.push(apps[0].child, apps[1].child)
    const results = await measure(options, [apps[0].origin, apps[1].origin])
    for (const app of apps) await stop(app.child)
    report(options, results)
  } finally {
    cleanUp()
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal)
  }
}
