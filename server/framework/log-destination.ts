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
  // sonic-boom's state, which its types leave out: `sync` is read on every write;
  // `_writing` holds from a write's start (in libuv's thread pool) until nothing waits
  // any more, or until stdout failed and nothing will be written again.
  const sonicBoom = stream as unknown as { sync: boolean; _writing: boolean }
  /** Resolves once no byte waits to be written and no write is under way, with whether one was. */
  const written = () =>
    new Promise<boolean>((resolve) => {
      if (!sonicBoom._writing) return resolve(false)
      const done = () => {
        stream.off('drain', done)
        stream.off('error', done)
        resolve(true)
      }
      stream.on('drain', done)
      stream.on('error', done)
    })
  // At exit pino writes what still waits, synchronously (its handler was registered
  // with the stream, so it runs before this one); the counts not reported yet follow
  // it, or they would be lost with the pending timer. Written synchronously too: there
  // is no event loop left to finish an asynchronous write. A write under way is not
  // waited for either: its lines may reach stdout after these, or not at all (the
  // process ends with the thread writing them), which is why a clean stop calls
  // `flush` first and only the abrupt exits (a second signal, the grace period
  // outlasted) rely on this.
  process.on('exit', () => {
    clearTimeout(later)
    try {
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
    async flush() {
      for (;;) {
        clearTimeout(later)
        later = undefined
        report()
        const waited = await written()
        // A report dropped while stdout was behind put its counts back: with everything
        // written there is room for it now. One dropped with nothing waiting is longer
        // than the bound itself, and would be dropped again.
        if (droppedLines === 0 || !log || !waited) break
      }
      clearTimeout(later)
      later = undefined
    },
  }
}
