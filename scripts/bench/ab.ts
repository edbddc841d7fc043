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
 *
 * Beside req/s, the server's CPU time per request (user + system, from /proc): when
 * other work shares the machine, it takes CPU 0 from the server and req/s falls with
 * it, but the CPU the server spends on each request changes much less.
 */
import { execFileSync, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
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
  // The caller only learns the folder once this returns: a failed `npm ci` must not leave it behind.
  try {
    execFileSync('git', ['worktree', 'add', '--detach', dir, ref], { cwd: projectRoot, stdio: 'inherit' })
    const lockfile = (root: string) => readFileSync(path.join(root, 'package-lock.json'), 'utf8')
    if (lockfile(dir) === lockfile(projectRoot)) symlinkSync(path.join(projectRoot, 'node_modules'), path.join(dir, 'node_modules'), 'dir')
    else execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' })
    return dir
  } catch (error) {
    removeCheckout(dir)
    throw error
  }
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

/** Seconds per clock tick of /proc's CPU times. */
const TICK_S = 1 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim() || 100)

/** A process's CPU time so far (user + system), in seconds. */
function cpuSeconds(pid: number): number {
  // The fields after the command's parenthesis; utime and stime are the 14th and 15th of the whole line.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) * TICK_S
}

interface Server {
  readonly origin: string
  readonly pid: number
}

interface FigureResult {
  readonly name: string
  /** Per side (A, B), per round: req/s, and the server's CPU microseconds per request. */
  readonly rps: [number[], number[]]
  readonly cpuUs: [number[], number[]]
  errors: number
}

async function measure(options: AbOptions, servers: readonly [Server, Server]): Promise<FigureResult[]> {
  const figures = AB_FIGURES.filter((f) => options.figures.includes(f.name))
  await warmUp(figures.flatMap((f) => servers.map((server) => server.origin + f.path)))
  const results: FigureResult[] = figures.map((f) => ({ name: f.name, rps: [[], []], cpuUs: [[], []], errors: 0 }))
  for (let round = 0; round < options.rounds; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0]
    for (const [i, figure] of figures.entries()) {
      const r = results[i]!
      for (const side of order) {
        const server = servers[side]!
        const cpuBefore = cpuSeconds(server.pid)
        const measured = await load(server.origin + figure.path, 50)
        r.rps[side]!.push(measured.requestsPerSecond)
        r.cpuUs[side]!.push(Math.round(((cpuSeconds(server.pid) - cpuBefore) * 1e6) / Math.max(1, measured.requests)))
        r.errors += measured.errors
      }
      const last = (side: 0 | 1) => `${r.rps[side].at(-1)} req/s ${r.cpuUs[side].at(-1)} us`
      console.log(`  round ${round + 1} ${figure.name}: A ${last(0)}, B ${last(1)}`)
    }
  }
  return results
}

const two = (value: number) => value.toFixed(2)

/** The middle value; with an even count, the mean of the two middle ones (an A/B run may have any number of rounds). */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length / 2
  return Number.isInteger(middle) ? Math.round((sorted[middle - 1]! + sorted[middle]!) / 2) : sorted[Math.floor(middle)]!
}

/**
 * Each side's rounds and median, B/A of the medians, and the rounds' own B/A: lowest,
 * highest and median. The median of the rounds' ratios compares each A with the B measured
 * right beside it, so the machine's drift over the run (a third on this one, within an
 * hour) weighs less in it than in the ratio of the medians.
 */
function comparison([a, b]: readonly [number[], number[]], unit: string): string {
  const ratios = b.map((value, i) => value / a[i]!)
  return (
    `A ${a.join(' / ')} (median ${median(a)})  B ${b.join(' / ')} (median ${median(b)}) ${unit}  ` +
    `B/A ${two(median(b) / median(a))} (rounds ${two(Math.min(...ratios))}-${two(Math.max(...ratios))}, median ${two(medianRatio(ratios))})`
  )
}

/** The middle ratio, unrounded (median() rounds, for req/s and µs). */
function medianRatio(ratios: readonly number[]): number {
  const sorted = [...ratios].sort((x, y) => x - y)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

function envLabel(env: Readonly<Record<string, string>>): string {
  const settings = Object.entries(env).map(([name, value]) => `${name}=${value}`)
  return settings.length > 0 ? ` with ${settings.join(' ')}` : ''
}

function report(options: AbOptions, results: readonly FigureResult[]): void {
  console.log(
    `\nA/B (A: ${options.against}${envLabel(options.env[0])}, B: this checkout${envLabel(options.env[1])}; ${TASKSET ? 'servers on CPU 0, load on CPU 1' : 'unpinned'}; c=50, ${DURATION_S} s per load, ${options.rounds} rounds):`,
  )
  for (const r of results) {
    console.log(`  ${r.name}${r.errors > 0 ? ` (${r.errors} errors or non-2xx answers)` : ''}`)
    console.log(`    throughput    ${comparison(r.rps, 'req/s')}`)
    console.log(`    CPU/request   ${comparison(r.cpuUs, 'us')}`)
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
    const apps = [await startApp(options.env[0], sides[0].root), await startApp(options.env[1], sides[1].root)] as const
    servers.push(apps[0].child, apps[1].child)
    const results = await measure(options, [
      { origin: apps[0].origin, pid: apps[0].child.pid! },
      { origin: apps[1].origin, pid: apps[1].child.pid! },
    ])
    for (const app of apps) await stop(app.child)
    report(options, results)
  } finally {
    cleanUp()
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal)
  }
}
