/**
 * stdout, written without blocking, with a bound on what waits in memory (docs/decisions/018): pino's
 * default keeps it all, so a stalled log shipper grows the process until it is killed, and a
 * synchronous destination would stall every request. Past the bound lines are dropped and counted.
 */
import type { FastifyBaseLogger } from 'fastify'
import pino, { type DestinationStream } from 'pino'

/** A reader that lags for minutes gives one line per interval, not one per write. */
const REPORT_INTERVAL_MS = 10_000

export interface LogDestination {
  readonly stream: DestinationStream
  reportDropsTo(log: FastifyBaseLogger): void
  /** A clean stop awaits it before `process.exit`, which would cut short a write still under way. */
  flush(): Promise<void>
}

class DroppedLines {
  log: FastifyBaseLogger | undefined
  private lines = 0
  private bytes = 0
  private lastReport = 0
  private later: NodeJS.Timeout | undefined
  /** If the report is dropped, its counts are counted again. */
  private reporting: { droppedLines: number; droppedBytes: number } | undefined

  constructor(private readonly maxBytes: number) {}

  get waiting(): boolean {
    return this.lines > 0 && this.log !== undefined
  }

  /** Emitted inside the write that dropped it, so maybe inside the report's own `warn`. */
  count(line: string | Buffer): void {
    if (this.reporting) {
      this.lines += this.reporting.droppedLines
      this.bytes += this.reporting.droppedBytes
    } else {
      this.lines++
      this.bytes += Buffer.byteLength(line)
    }
    // A line too long for the bound, dropped while nothing else waits, is followed by no write.
    this.schedule()
  }

  report(): void {
    if (!this.waiting) return
    this.lastReport = Date.now()
    const lost = { droppedLines: this.lines, droppedBytes: this.bytes }
    this.lines = this.bytes = 0
    this.reporting = lost
    try {
      this.log!.warn(lost, `log lines dropped: stdout took them slower than they came, and more than LOG_BUFFER_BYTES (${this.maxBytes}) waited`)
    } finally {
      this.reporting = undefined
    }
  }

  /** A timer, not the next write: by the interval's end the log may have gone quiet. */
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

  unschedule(): void {
    clearTimeout(this.later)
    this.later = undefined
  }
}

/** With whether a write was under way. */
function writtenOut(stream: DestinationStream & NodeJS.EventEmitter): Promise<boolean> {
  // sonic-boom's state, which its types leave out: true until nothing waits, or stdout failed.
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
  // At exit pino writes what waits, synchronously, before this handler; the counts not reported yet
  // follow, synchronously too (no event loop is left). A write under way is lost with its thread,
  // which is why a clean stop calls `flush` first and only abrupt exits rely on this.
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
        // One dropped with nothing waiting is longer than the bound itself, and would be dropped again.
        if (!dropped.waiting || !waited) break
      }
      dropped.unschedule()
    },
  }
}
