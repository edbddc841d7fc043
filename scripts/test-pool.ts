/**
 * Runs the steps of `npm test` (scripts/test.ts) side by side: the type check, the
 * lint, the test builds and the test files, `jobs` at a time. A step starts once the
 * steps it needs have passed (a test file after the builds it reads, `dist` after
 * `deployed`); among those ready, the longest expected goes first, so the slowest
 * files do not start last. A step whose prerequisite failed fails without running.
 *
 * Each test file is a Node program (`node --enable-source-maps <the file transpiled>`,
 * scripts/test-transpile.ts) printing its own TAP, without tap's runner
 * (docs/decisions/023-test-tiers.md). One job: each report is passed through as it
 * comes. More: a step's output is kept until it ends, then printed whole, so reports
 * never mix. A test file gets tap's `timeout` as TAP_TIMEOUT, which
 * tap enforces inside the file; one still running a minute past it is stopped
 * (SIGTERM, then SIGKILL) and counted as failed.
 */
import type { ChildProcess } from 'node:child_process'

export interface Step {
  /** The file's path for a test file; else what the step is (`typecheck`, `build production`). */
  readonly name: string
  readonly kind: 'check' | 'build' | 'test'
  /** The steps that must pass before this one starts, by name. */
  readonly after: readonly string[]
  /** Seconds it is expected to take: the longest ready step starts first. */
  readonly estimate: number
  /** Starts it, stdout and stderr piped. */
  readonly start: () => ChildProcess
}

export interface PoolOptions {
  /** How many steps run at once. */
  readonly jobs: number
  /** tap's per-file timeout, in seconds: a test file still running a minute past it is killed. */
  readonly timeoutSeconds: number
  /** True once a signal asked the run to stop: no step is started after it. */
  readonly stopping: () => boolean
}

export interface StepOutcome {
  readonly name: string
  readonly kind: Step['kind']
  readonly seconds: number
  /** Why it failed; undefined when it passed. */
  readonly why?: string
  readonly passed: number
  readonly failed: number
}

/** Counts a report's assertion lines: `ok N`/`not ok N` without a `# time=` (which ends a subtest) or a TODO. */
function countAssertions(text: string): { passed: number; failed: number } {
  let passed = 0
  let failed = 0
  for (const line of text.split('\n')) {
    const point = /^\s*(not )?ok \d+\b(.*)$/.exec(line)
    if (!point || /# (time=|TODO)/.test(point[2]!)) continue
    if (point[1]) failed++
    else passed++
  }
  return { passed, failed }
}

/** After the timeout: SIGTERM (tap ends the file, running its teardowns), then SIGKILL this much later. */
const KILL_GRACE_MS = 10_000
/** After the process exits, how long its output may still come (a process it started may hold the pipes). */
const OUTPUT_GRACE_MS = 5_000

interface Finished {
  readonly report: string
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly timedOut: boolean
  readonly seconds: number
}

function runStep(step: Step, options: PoolOptions, live: boolean): Promise<Finished> {
  const started = performance.now()
  const child = step.start()
  let report = ''
  const take = (stream: NodeJS.WriteStream) => (chunk: Buffer) => {
    report += chunk.toString()
    if (live) stream.write(chunk)
  }
  child.stdout!.on('data', take(process.stdout))
  child.stderr!.on('data', take(process.stderr))
  let timedOut = false
  let kill: NodeJS.Timeout | undefined
  const backstop =
    step.kind === 'test'
      ? setTimeout(
          () => {
            timedOut = true
            child.kill('SIGTERM')
            kill = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS)
          },
          (options.timeoutSeconds + 60) * 1000,
        )
      : undefined
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()))
  return new Promise((resolve) => {
    // Not started at all (the command is missing): the step fails, saying why.
    child.once('error', (error) => {
      clearTimeout(backstop)
      resolve({ report: `${report}${error.message}\n`, code: 127, signal: null, timedOut: false, seconds: (performance.now() - started) / 1000 })
    })
    child.once('exit', (code, signal) => {
      clearTimeout(backstop)
      clearTimeout(kill)
      // The rest of its output, unless a process it left behind holds the pipes open.
      const outputEnd = setTimeout(() => {
        child.stdout!.destroy()
        child.stderr!.destroy()
      }, OUTPUT_GRACE_MS)
      void closed.then(() => {
        clearTimeout(outputEnd)
        resolve({ report, code, signal, timedOut, seconds: (performance.now() - started) / 1000 })
      })
    })
  })
}

function outcomeOf(step: Step, finished: Finished, timeoutSeconds: number): StepOutcome {
  const counts = step.kind === 'test' ? countAssertions(finished.report) : { passed: 0, failed: 0 }
  // A failed assertion fails the file even if the process exits 0 (a stray process.exit).
  const why = finished.timedOut
    ? `still running ${timeoutSeconds + 60} s after it started: killed`
    : finished.code !== 0
      ? `exited with ${finished.code ?? finished.signal}`
      : counts.failed > 0
        ? `${counts.failed} assertion${counts.failed > 1 ? 's' : ''} failed`
        : undefined
  return { name: step.name, kind: step.kind, seconds: finished.seconds, why, ...counts }
}

/** Runs `steps`, `options.jobs` at a time, each after the steps it needs; prints each report and a line per step. */
export async function runSteps(steps: readonly Step[], options: PoolOptions): Promise<StepOutcome[]> {
  const live = options.jobs === 1
  const waiting = [...steps].sort((a, b) => b.estimate - a.estimate)
  const outcomes = new Map<string, StepOutcome>()
  let running = 0
  return new Promise((resolve) => {
    const settle = (step: Step, outcome: StepOutcome) => {
      outcomes.set(step.name, outcome)
      const label = step.kind === 'test' ? step.name : `${step.name} (${step.kind})`
      console.log(`${outcome.why ? 'not ok' : 'ok'} - ${label} (${outcome.seconds.toFixed(1)} s)${outcome.why ? `: ${outcome.why}` : ''}`)
    }
    const next = () => {
      for (let i = 0; i < waiting.length;) {
        const step = waiting[i]!
        const failedBefore = step.after.find((name) => outcomes.get(name)?.why)
        if (failedBefore || options.stopping()) {
          waiting.splice(i, 1)
          if (!options.stopping()) settle(step, { name: step.name, kind: step.kind, seconds: 0, why: `${failedBefore} failed`, passed: 0, failed: 0 })
          continue
        }
        const ready = step.after.every((name) => outcomes.has(name))
        if (!ready || running >= options.jobs) {
          i++
          continue
        }
        waiting.splice(i, 1)
        running++
        if (live) console.log(`# ${step.name}`)
        void runStep(step, options, live).then((finished) => {
          running--
          if (!live) process.stdout.write(`# ${step.name}\n${finished.report}`)
          settle(step, outcomeOf(step, finished, options.timeoutSeconds))
          next()
        })
      }
      if (running > 0) return
      // Nothing runs and these never became ready (a prerequisite that is no step): failed, not left out.
      for (const step of waiting.splice(0)) {
        if (!options.stopping())
          settle(step, { name: step.name, kind: step.kind, seconds: 0, why: 'a step it needs never ran', passed: 0, failed: 0 })
      }
      resolve(steps.flatMap((step) => outcomes.get(step.name) ?? []))
    }
    next()
  })
}
