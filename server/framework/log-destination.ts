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
}

export function boundedStdout(maxBytes: number): LogDestination {
  const stream = pino.destination({ dest: 1, sync: false, maxLength: maxBytes })
  let log: FastifyBaseLogger | undefined
  let droppedLines = 0
  let droppedBytes = 0
  let lastReport = 0
  let later: NodeJS.Timeout | undefined
  /** The counts a report carries while it is being written: if it is dropped, they are counted again. */
  let reporting: { droppedLines: number; droppedBytes: number } | undefined
  stream.on('drop', (line: string | Buffer) => {
    // Emitted inside the write that dropped the line, so inside the report's own `warn`.
    if (reporting) {
      droppedLines += reporting.droppedLines
      droppedBytes += reporting.droppedBytes
    } else {
      droppedLines++
      droppedBytes += Buffer.byteLength(line)
    }
    // Also from here: a line too long for the bound, dropped while nothing else waits,
    // is followed by no write. A report tried while stdout is still stalled is dropped
    // and counted in turn, at most once an interval.
    scheduleReport()
  })
  const report = () => {
    if (droppedLines === 0 || !log) return
    lastReport = Date.now()
    const lost = { droppedLines, droppedBytes }
    droppedLines = droppedBytes = 0
    // The report can be dropped too (stdout still stalled): what it carried goes into the next one.
    reporting = lost
    try {
      log.warn(lost, `log lines dropped: stdout took them slower than they came, and more than LOG_BUFFER_BYTES (${maxBytes}) waited`)
    } finally {
      reporting = undefined
    }
  }
  // After a drop, and on 'write' (stdout took some bytes: room again for the report).
  // Within the interval of the last one, the report waits for its end: by then the log
  // may have gone quiet, and no other write would come to carry it.
  const scheduleReport = () => {
    if (droppedLines === 0 || !log || later) return
    const wait = lastReport + REPORT_INTERVAL_MS - Date.now()
    // On the next tick at the soonest: this event fires inside the stream's own write bookkeeping.
    later = setTimeout(
      () => {
        later = undefined
        report()
      },
      Math.max(wait, 0),
    )
    later.unref() // a pending report never keeps the process alive
  }
  stream.on('write', scheduleReport)
  // At exit pino writes what still waits, synchronously (its handler was registered
  // with the stream, so it runs before this one); the counts not reported yet follow
  // it, or they would be lost with the pending timer. Written synchronously too: there
  // is no event loop left to finish an asynchronous write.
  process.on('exit', () => {
    clearTimeout(later)
    try {
      // sonic-boom reads its `sync` option on every write; its types leave the field out.
      const sonicBoom = stream as unknown as { sync: boolean }
      sonicBoom.sync = true
      report()
      stream.flushSync()
    } catch {
      // stdout is gone: there is no one left to tell
    }
  })
  return {
    stream,
    reportDropsTo(logger) {
      log = logger
    },
  }
}
