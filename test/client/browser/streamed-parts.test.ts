/**
 * A streamed page-data answer read in the browser: the payload line, then each part as
 * its line arrives; an answer the browser does not use lets go of its connection.
 */
import t from 'tap'
import { streamedParts } from '../../../client/framework/browser/deferred-parts.js'
import type { PagePayload } from '../../../shared/framework/page-payload.js'

const payload: PagePayload = {
  kind: 'page',
  status: 200,
  buildId: 'b',
  routeId: 'stats',
  mode: 'dynamic',
  params: {},
  data: { now: 1 },
  deferred: [{ key: 'slow' }],
}

/** A body the test writes line by line; `cancelled` says whether the reader let go. */
function body() {
  let controller!: ReadableStreamDefaultController<Uint8Array>
  const state = { cancelled: false }
  const stream = new ReadableStream<Uint8Array>({
    start: (c) => void (controller = c),
    cancel: () => void (state.cancelled = true),
  })
  const write = (text: string) => controller.enqueue(new TextEncoder().encode(text))
  return { stream, write, close: () => controller.close(), state }
}

t.test('the payload, then each part as its line arrives, split anywhere', async (t) => {
  const { stream, write, close } = body()
  const parts = streamedParts(stream)
  const line = JSON.stringify(payload) + '\n'
  write(line.slice(0, 10))
  write(line.slice(10) + '{"key":"sl')
  const received = parts.receive((await parts.payload) as PagePayload)
  const slow = (received.data as { slow: Promise<unknown> }).slow
  write('ow","value":{"n":2}}\n')
  t.same(await slow, { n: 2 })
  close()
})

t.test('a part whose line never comes fails once the answer ends', async (t) => {
  const { stream, write, close } = body()
  const parts = streamedParts(stream)
  write(JSON.stringify(payload) + '\n')
  const received = parts.receive((await parts.payload) as PagePayload)
  close()
  await t.rejects((received.data as { slow: Promise<unknown> }).slow, { name: 'DeferredDataError', message: /did not arrive/ })
})

t.test('an answer not used (another build) is cancelled: the connection is not held for its parts', async (t) => {
  const { stream, write, state } = body()
  const parts = streamedParts(stream)
  write(JSON.stringify({ ...payload, buildId: 'other' }) + '\n')
  await parts.payload
  t.notOk(state.cancelled)
  parts.cancel()
  await waitForCancel(state)
  t.ok(state.cancelled, 'the body was cancelled, though nothing more had come')
})

t.test('a cancel while a read is under way ends it: nothing more need come', async (t) => {
  const { stream, state } = body()
  const parts = streamedParts(stream)
  parts.cancel()
  t.equal(await parts.payload, undefined, 'the answer ends')
  await waitForCancel(state)
  t.ok(state.cancelled, 'the body was cancelled')
})

t.test('a line that is not JSON: the parts not come fail, and the rest is not waited for', async (t) => {
  const { stream, write, state } = body()
  const parts = streamedParts(stream)
  write(JSON.stringify(payload) + '\n')
  const received = parts.receive((await parts.payload) as PagePayload)
  write('<html>a proxy error page</html>\n')
  await t.rejects((received.data as { slow: Promise<unknown> }).slow, { name: 'DeferredDataError' })
  await waitForCancel(state)
  t.ok(state.cancelled, 'the body was cancelled')
})

/** The stream hears of a cancel a few microtasks after it was asked for. */
async function waitForCancel(state: { cancelled: boolean }) {
  for (let i = 0; i < 100 && !state.cancelled; i++) await Promise.resolve()
}
