/**
 * The built server's log, when stdout is read slower than the server logs (a stalled
 * log shipper): requests are still answered, at most LOG_BUFFER_BYTES of lines wait
 * in memory, the rest are dropped, and once stdout takes lines again a warning counts
 * the lost ones.
 */
import t from 'tap'
import { buildDist, listeningOrigin, startServer } from '../helpers/server-process.js'
import { waitUntil } from '../helpers/wait.js'

const dist = await buildDist(t)

type LogLine = Record<string, any>
/** The warnings that count dropped lines. */
const dropReports = (lines: readonly LogLine[]) => lines.filter((line) => line.msg?.startsWith('log lines dropped'))
/** How many lines the reports among `lines` say were dropped. */
const droppedCount = (lines: readonly LogLine[]) => dropReports(lines).reduce((sum, line) => sum + (line.droppedLines as number), 0)
/** The request log lines that came through: two a request. */
const requestLineCount = (lines: readonly LogLine[]) =>
  lines.filter((line) => line.msg === 'incoming request' || line.msg === 'request completed').length

t.test('a stalled stdout: lines past LOG_BUFFER_BYTES are dropped and counted, requests still answered', async (t) => {
  const bound = 128 * 1024
  const server = startServer(dist, { PORT: '0', SHUTDOWN_DELAY_MS: '0', LOG_BUFFER_BYTES: String(bound) })
  t.teardown(() => void server.child.kill('SIGKILL'))
  const origin = await listeningOrigin(server)
  const before = server.logLines().length

  // Nobody reads the server's stdout now: the pipe fills (64 KiB), then the server's buffer.
  // Two lines of about 220 bytes a request: 1,000 requests log twice what both hold.
  server.child.stdout!.pause()
  const requests = 1_000
  const statuses = new Map<number, number>()
  let next = 0
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < requests) {
        next++
        const res = await fetch(`${origin}/about?n=${next}`)
        await res.arrayBuffer()
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
      }
    }),
  )
  t.same([...statuses], [[200, requests]], 'every request answered while nothing read the log')

  server.child.stdout!.resume()
  // Reports may come in more than one line (one sent while stdout was stalled counts
  // what was lost until then): wait until every line came through or was counted.
  const accounted = () => {
    const lines = server.logLines().slice(before)
    return requestLineCount(lines) + droppedCount(lines) >= 2 * requests
  }
  await waitUntil(accounted, 'the server reports the dropped lines', 25_000)
  const lines = server.logLines().slice(before)
  const reports = dropReports(lines)
  t.equal(reports[0]!.level, 40, 'a warning')
  t.match(reports[0]!.msg, /LOG_BUFFER_BYTES \(131072\)/, 'naming the setting')
  const dropped = droppedCount(lines)
  const droppedBytes = reports.reduce((sum, line) => sum + (line.droppedBytes as number), 0)
  const requestLines = requestLineCount(lines)
  // Two lines a request; what came through plus what was counted is all of them.
  t.ok(requestLines < 2 * requests, `some lines were lost (${requestLines} of ${2 * requests} came through)`)
  t.ok(requestLines + dropped >= 2 * requests, `and every lost one was counted (${dropped} dropped)`)
  // More was logged than the pipe and the bound hold together: the rest was dropped, not kept.
  const logged = droppedBytes + lines.reduce((sum, line) => sum + JSON.stringify(line).length + 1, 0)
  t.ok(logged > bound + 64 * 1024, `the server logged more (${logged} bytes) than it could keep`)
})

t.test('stopping while stdout is stalled: the lines lost since the last report are counted before the process exits', async (t) => {
  // A short grace period: the server exits well within the report interval of the first drop.
  const server = startServer(dist, { PORT: '0', SHUTDOWN_DELAY_MS: '0', SHUTDOWN_GRACE_MS: '1000', LOG_BUFFER_BYTES: String(64 * 1024) })
  t.teardown(() => void server.child.kill('SIGKILL'))
  const origin = await listeningOrigin(server)
  const before = server.logLines().length
  const exited = new Promise<number | null>((resolve) => server.child.once('exit', resolve))
  /**
   * `count` requests while nobody reads the server's stdout. Each logs a line of 8 KB
   * (its URL), so a few dozen fill stdout and the bound: the second stall and the stop
   * take seconds even on a busy machine, well within the report interval (10 s) whose
   * timer would otherwise report the lost lines before the exit does.
   */
  const padding = 'x'.repeat(8_000)
  const stalled = async (count: number, from: number) => {
    server.child.stdout!.pause()
    for (let batch = 0; batch < count / 15; batch++) {
      await Promise.all(
        Array.from({ length: 15 }, async (_, i) => (await fetch(`${origin}/about?n=${from + batch * 15 + i}&pad=${padding}`)).arrayBuffer()),
      )
    }
  }

  // A first stall, reported as soon as stdout takes lines again: the next report then
  // waits for the end of the interval.
  await stalled(90, 0)
  server.child.stdout!.resume()
  await waitUntil(() => dropReports(server.logLines().slice(before)).length > 0, 'the first report', 25_000)
  // A second one, and a stop within that interval: its counts would wait for a timer.
  await stalled(90, 90)
  server.child.kill('SIGTERM')
  server.child.stdout!.resume()
  t.equal(await exited, 0, 'the server stopped cleanly')
  const requests = 180

  const lines = server.logLines().slice(before)
  const dropped = droppedCount(lines)
  const requestLines = requestLineCount(lines)
  t.ok(requestLines < 2 * requests, `some lines were lost (${requestLines} of ${2 * requests} came through)`)
  // At least: the shutdown's own lines may be among those dropped and counted.
  t.ok(requestLines + dropped >= 2 * requests, `every lost one was counted before the exit (${requestLines} + ${dropped} dropped)`)
  const stopped = lines.findIndex((line) => line.msg === 'stopped')
  t.ok(stopped >= 0, 'the last line of the shutdown came through')
  t.match(
    lines.slice(stopped + 1),
    [{ level: 40, msg: /^log lines dropped/ }],
    'and after it, at exit, the report of the lines dropped since the last one',
  )
})
