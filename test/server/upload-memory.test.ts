/**
 * Files are streamed to disk, never held whole: the built server, as an operator runs
 * it, takes 20 uploads of 5 MiB at once with its resident memory growing by far less
 * than the 100 MiB they add up to. Measured by the kernel: the peak resident set
 * (VmHWM) during the uploads, against the resident set before them.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t from 'tap'
import { buildDist, listeningOrigin, startServer } from '../helpers/server-process.js'
import { fileOf, multipartBody, send } from '../helpers/multipart.js'
import { MiB } from '../../shared/framework/uploads.js'

const UPLOADS = 20
const FILE_BYTES = 5 * MiB
/** Well under one upload's worth per upload: a server that buffered them would pass 100 MiB. */
const MAX_GROWTH = 60 * MiB

/** A figure of /proc/<pid>/status, in bytes. */
function memoryOf(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const kilobytes = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
  if (!kilobytes) throw new Error(`no ${field} for process ${pid}`)
  return Number(kilobytes) * 1024
}

t.test(`${UPLOADS} concurrent uploads of 5 MiB keep the server's memory bounded`, async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'upload-memory-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const server = startServer(await buildDist(t), { PORT: '0', UPLOAD_DIR: dir })
  t.teardown(() => void server.child.kill('SIGKILL'))
  const origin = await listeningOrigin(server)
  const pid = server.child.pid!
  const body = multipartBody([
    { name: '_action', value: 'send' },
    { name: 'name', value: 'Load Test' },
    { name: 'email', value: 'load@example.com' },
    { name: 'message', value: 'Twenty at once' },
    { name: 'attachment', filename: 'scan.pdf', type: 'application/pdf', content: fileOf('pdf', FILE_BYTES) },
  ])

  // Warm up: the code paths compiled, the buffers and pools they use allocated once.
  for (let i = 0; i < 3; i++) t.equal((await send(origin, '/contact', body)).status, 303, 'warm-up upload')
  const before = memoryOf(pid, 'VmRSS')
  writeFileSync(`/proc/${pid}/clear_refs`, '5') // resets VmHWM to the current resident set

  const answers = await Promise.all(Array.from({ length: UPLOADS }, () => send(origin, '/contact', body)))
  t.same(
    answers.map((answer) => answer.status),
    Array(UPLOADS).fill(303),
    'every upload went through',
  )
  const growth = memoryOf(pid, 'VmHWM') - before
  t.comment(
    `resident set ${Math.round(before / MiB)} MiB before, peak growth ${Math.round(growth / MiB)} MiB for ${(UPLOADS * FILE_BYTES) / MiB} MiB uploaded`,
  )
  t.ok(growth < MAX_GROWTH, `peak growth ${Math.round(growth / MiB)} MiB stays under ${MAX_GROWTH / MiB} MiB`)
  t.same(readdirSync(dir), [], 'and every file was removed')
})
