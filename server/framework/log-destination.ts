/**
 * Where the production server's log lines go: stdout, written without blocking, with a
 * bound on how much may wait in memory for it.
 *
 * pino's default destination writes asynchronously and keeps whatever stdout has not
 * taken yet in memory, without limit: a log reader that stalls (a full pipe, a stuck
 * log shipper) makes the process grow until it is killed for its memory. A synchronous
 * destination would stall every request instead. So lines wait up to a bound
 * (LOG_BUFFER_BYTES); past it a line is dropped and counted, and once stdout takes
 * lines again one warning says how many were lost, at the latest when the process
 * exits (docs/decisions/018).
 */
import type { FastifyBaseLogger } from 'fastify'
import pino, { type DestinationStream } from 'pino'

/** How often, at most, the dropped lines are reported: a reader that lags for minutes gives one line per interval, not one per write. */
const REPORT_INTERVAL_MS = 10_000

export interface LogDestination {
  /** The stream to give the logger. */
  readonly stream: DestinationStream
  /** Where the warnings about dropped lines go: the logger writing into `stream`, once it exists. */
  reportDropsTo(log: FastifyBaseLogger): void
  /**
   * Reports the lines dropped so far without waiting for the interval, and resolves
   * once every line logged until then is written, the report last. A clean stop awaits
   * it before `process.exit`, which would cut short a write still under way.
   */
  flush(): Promise<void>
}

/** Lines dropped since the last report, and their report: a warning through the logger, at most one per interval. */
class DroppedLines {
  log: FastifyBaseLogger | undefined
  private lines = 0
  private bytes = 0
  private lastReport = 0
  private later: NodeJS.Timeout | undefined
  /** The counts a report carries while it is being written: if it is dropped, they are counted again. */
  private reporting: { droppedLines: number; droppedBytes: number } | undefined

  constructor(private readonly maxBytes: number) {}

  /** True while some dropped lines wait for a report that can be written. */
  get waiting(): boolean {
    return this.lines > 0 && this.log !== undefined
  }

  /** The stream dropped `line` (emitted inside the write that dropped it, so maybe inside the report's own `warn`). */
  count(line: string | Buffer): void {
    if (this.reporting) {
      this.lines += this.reporting.droppedLines
      this.bytes += this.reporting.droppedBytes
    } else {
      this.lines++
      this.bytes += Buffer.byteLength(line)
    }
    // Also from here: a line too long for the bound, dropped while nothing else waits,
    // is followed by no write. A report tried while stdout is still stalled is dropped
    // and counted in turn, at most once an interval.
    this.schedule()
  }

  /** Writes the report now, if there is one to write. */
  report(): void {
    if (!this.waiting) return
    this.lastReport = Date.now()
    const lost = { droppedLines: this.lines, droppedBytes: this.bytes }
    this.lines = this.bytes = 0
    // The report can be dropped too (stdout still stalled): what it carried goes into the next one.
    this.reporting = lost
    try {
      this.log!.warn(lost, `log lines dropped: stdout took them slower than they came, and more than LOG_BUFFER_BYTES (${this.maxBytes}) waited`)
    } finally {
      this.reporting = undefined
    }
  }

  /**
   * After a drop, and on 'write' (stdout took some bytes: room again for the report).
   * Within the interval of the last one, the report waits for its end: by then the log
   * may have gone quiet, and no other write would come to carry it.
   */
  readonly schedule = (): void => {
    if (!this.waiting || this.later) return
    const wait = this.lastReport + REPORT_INTERVAL_MS - Date.now()
    // On the next tick at the soonest: this event fires inside the stream's own write bookkeeping.
    this.later = setTimeout(
      () => {
        this.later = undefined
        this.report()
      },
      Math.max(wait, 0),
    )
    this.later.unref() // a pending report never keeps the process alive
  }

  /** The scheduled report will not be written by its timer (written now, or never). */
  unschedule(): void {
    clearTimeout(this.later)
    this.later = undefined
  }
}

/** Resolves once no byte waits to be written and no write is under way, with whether one was. */
function writtenOut(stream: DestinationStream & NodeJS.EventEmitter): Promise<boolean> {
  // sonic-boom's state, which its types leave out: `_writing` holds from a write's start
  // (in libuv's thread pool) until nothing waits any more, or until stdout failed and
  // nothing will be written again.
  if (!(stream as unknown as { _writing: boolean })._writing) return Promise.resolve(false)
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done)
      stream.off('error', done)
      resolve(true)
    }
    stream.on('drain', done)
    stream.on('error', done)
  })
}

export function boundedStdout(maxBytes: number): LogDestination {
  const stream = pino.destination({ dest: 1, sync: false, maxLength: maxBytes })
  const dropped = new DroppedLines(maxBytes)
  stream.on('drop', (line: string | Buffer) => dropped.count(line))
  stream.on('write', dropped.schedule)
  // At exit pino writes what still waits, synchronously (its handler was registered
  // with the stream, so it runs before this one); the counts not reported yet follow
  // it, or they would be lost with the pending timer. Written synchronously too: there
  // is no event loop left to finish an asynchronous write (sonic-boom reads `sync` on
  // every write). A write under way is not waited for either: its lines may reach
  // stdout after these, or not at all (the process ends with the thread writing them),
  // which is why a clean stop calls `flush` first and only the abrupt exits (a second
  // signal, the grace period outlasted) rely on this.
  process.on('exit', () => {
    dropped.unschedule()
    try {
      const sonicBoom = stream as unknown as { sync: boolean }
      sonicBoom.sync = true
      dropped.report()
      stream.flushSync()
    } catch {
      // stdout is gone: there is no one left to tell
    }
  })
  return {
    stream,
    reportDropsTo(logger) {
      dropped.log = logger
    },
    async flush() {
      for (;;) {
        dropped.unschedule()
        dropped.report()
        const waited = await writtenOut(stream)
        // A report dropped while stdout was behind put its counts back: with everything
        // written there is room for it now. One dropped with nothing waiting is longer
        // than the bound itself, and would be dropped again.
        if (!dropped.waiting || !waited) break
      }
      dropped.unschedule()
    },
  }
}
