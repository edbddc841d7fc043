/**
 * Runs test files for `npm test` (scripts/test.ts) without tap's runner: each file is
 * a Node program (`node --import=tsx/esm <file>`, tap's `node-arg`) that prints its own TAP,
 * `jobs` at a time. tap's runner adds to every test process its mock and process-info
 * loader hooks (the latter through NODE_OPTIONS, so into every server, build and npm
 * the test starts too) and source maps: about a second of CPU per file here, a fifth of
 * the unit tier (docs/decisions/023-test-tiers.md).
 *
 * One job: each file's report is passed through as it comes. More: a file's report
 * (stdout and stderr) is kept until it ends, then printed whole, so reports never mix.
 * Each file gets tap's `timeout` as TAP_TIMEOUT, which tap enforces inside the file;
 * a process still running a minute past it is stopped (SIGTERM, then SIGKILL) and
 * counted as failed.
 */
import type { ChildProcess } from 'node:child_process'

export interface PoolOptions {
  /** How many files run at once. */
  readonly jobs: number
  /** tap's per-file timeout, in seconds. */
  readonly timeoutSeconds: number
  /** Starts `node <args>` with stdout and stderr piped (scripts/test.ts passes signals on to it). */
  readonly start: (args: readonly string[]) => ChildProcess
  /** tap's `node-arg` (`--import=tsx/esm`). */
  readonly nodeArgs: readonly string[]
  /** True once a signal asked the run to stop: no file is started after it. */
  readonly stopping: () => boolean
}

export interface PoolResult {
  readonly passed: number
  readonly failed: number
  /** The files whose process failed (an assertion, a crash, a timeout), with why. */
  readonly failedFiles: ReadonlyArray<{ file: string; why: string }>
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

interface FileOutcome {
  readonly report: string
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly timedOut: boolean
  readonly seconds: number
}

/** After the timeout: SIGTERM (tap ends the file, running its teardowns), then SIGKILL this much later. */
const KILL_GRACE_MS = 10_000
/** After the process exits, how long its output may still come (a process it started may hold the pipes). */
const OUTPUT_GRACE_MS = 5_000

function runFile(file: string, options: PoolOptions, live: boolean): Promise<FileOutcome> {
  const started = performance.now()
  const child = options.start([...options.nodeArgs, file])
  let report = ''
  const take = (stream: NodeJS.WriteStream) => (chunk: Buffer) => {
    report += chunk.toString()
    if (live) stream.write(chunk)
  }
  child.stdout!.on('data', take(process.stdout))
  child.stderr!.on('data', take(process.stderr))
  let timedOut = false
  let kill: NodeJS.Timeout | undefined
  const backstop = setTimeout(
    () => {
      timedOut = true
      child.kill('SIGTERM')
      kill = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS)
    },
    (options.timeoutSeconds + 60) * 1000,
  )
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()))
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      clearTimeout(backstop)
      clearTimeout(kill)
      // The rest of its output, unless a process it left behind holds the pipes open.
      const outputEnd = setTimeout(() => {
        child.stdout!.destroy()
        child.stderr!.destroy()
      }, OUTPUT_GRACE_MS)
      // 'close' comes once stdout and stderr have both ended (or been destroyed above).
      void closed.then(() => {
        clearTimeout(outputEnd)
        resolve({ report, code, signal, timedOut, seconds: (performance.now() - started) / 1000 })
      })
    })
  })
}

/** Runs `files`, `options.jobs` at a time; prints each report and a line per file. */
export async function runTestFiles(files: readonly string[], options: PoolOptions): Promise<PoolResult> {
  const live = options.jobs === 1
  const queue = [...files]
  const failedFiles: Array<{ file: string; why: string }> = []
  let passed = 0
  let failed = 0
  const worker = async () => {
    for (let file = queue.shift(); file !== undefined && !options.stopping(); file = queue.shift()) {
      if (live) console.log(`# ${file}`)
      const outcome = await runFile(file, options, live)
      if (!live) process.stdout.write(`# ${file}\n${outcome.report}`)
      const counts = countAssertions(outcome.report)
      passed += counts.passed
      failed += counts.failed
      // A failed assertion fails the file even if the process exits 0 (a stray process.exit).
      const why = outcome.timedOut
        ? `still running ${options.timeoutSeconds + 60} s after it started: killed`
        : outcome.code !== 0
          ? `exited with ${outcome.code ?? outcome.signal}`
          : counts.failed > 0
            ? `${counts.failed} assertion${counts.failed > 1 ? 's' : ''} failed`
            : undefined
      if (why) failedFiles.push({ file, why })
      console.log(`${why ? 'not ok' : 'ok'} - ${file} (${outcome.seconds.toFixed(1)} s)${why ? `: ${why}` : ''}`)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.jobs, files.length)) }, worker))
  return { passed, failed, failedFiles }
}
