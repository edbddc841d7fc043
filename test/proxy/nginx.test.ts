// test-needs: nginx
/**
 * Two instances behind real nginx, as docs/deploy.md sets them up: a rolling restart
 * under steady load loses no request, and the client address the app sees is the real
 * client's, never what a client claims in X-Forwarded-For.
 */
import { once } from 'node:events'
import { Agent, request } from 'node:http'
import { createGunzip } from 'node:zlib'
import t from 'tap'
import { startNginx } from '../helpers/nginx.js'
import { waitUntil } from '../helpers/wait.js'
import { buildDist, listeningOrigin, startServer, type ServerProcess } from '../helpers/server-process.js'

const dist = await buildDist(t)

/** An instance on a fixed port (nginx's upstream list is fixed), trusting nginx on loopback. */
async function startInstance(port: number, env: Record<string, string> = {}): Promise<ServerProcess> {
  const server = startServer(dist, {
    PORT: String(port),
    TRUST_PROXY: '127.0.0.1',
    SHUTDOWN_DELAY_MS: '1000',
    SHUTDOWN_GRACE_MS: '5000',
    // The load below is one client posting thousands of forms: no budget would hold it.
    RATE_LIMIT_FORMS: 'off',
    ...env,
  })
  await listeningOrigin(server)
  return server
}

async function stop(server: ServerProcess): Promise<number | null> {
  const exited = once(server.child, 'exit')
  server.child.kill('SIGTERM')
  const [code] = await exited
  return code as number | null
}

interface RequestOptions {
  readonly localAddress?: string
  readonly headers?: Record<string, string>
  readonly agent?: Agent
  readonly method?: string
  readonly body?: string
}

/** A request through nginx (GET unless told), from a chosen loopback address, like a client on another machine. */
function get(origin: string, path: string, options: RequestOptions = {}) {
  return new Promise<number>((resolve, reject) => {
    const url = new URL(path, origin)
    request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: options.method ?? 'GET',
        headers: options.headers,
        localAddress: options.localAddress,
        agent: options.agent,
      },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      },
    )
      .on('error', reject)
      .end(options.body)
  })
}

/** A valid message to /contact, as the form without JavaScript posts it: 303 on success. */
function postContact(origin: string, agent: Agent) {
  return get(origin, '/contact', {
    agent,
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
    body: '_action=send&name=Ada&email=ada%40example.com&message=Hello',
  })
}

t.test('a rolling restart under steady load loses no request', async (t) => {
  let a = await startInstance(0)
  let b = await startInstance(0)
  const portA = Number(new URL(await listeningOrigin(a)).port)
  const portB = Number(new URL(await listeningOrigin(b)).port)
  t.teardown(() => {
    a.child.kill('SIGKILL')
    b.child.kill('SIGKILL')
  })
  const origin = await startNginx(t, [`http://127.0.0.1:${portA}`, `http://127.0.0.1:${portB}`])

  const paths = ['/items/7', '/_data/items/7', '/api/health', '/about', '/_data/about']
  const agent = new Agent({ keepAlive: true, maxSockets: 8 })
  t.teardown(() => agent.destroy())
  let running = true
  let sent = 0
  const failures: string[] = []
  const workers = Array.from({ length: 4 }, async (_, w) => {
    for (let i = 0; running && i < 1_000_000; i++) {
      const path = paths[(i + w) % paths.length]!
      sent++
      try {
        const status = await get(origin, path, { agent })
        if (status !== 200) failures.push(`${path}: ${status}`)
      } catch (error) {
        failures.push(`${path}: ${(error as Error).message}`)
      }
    }
  })
  // Form posts too: nginx may not retry them on another instance once sent, so none
  // may be cut off by an instance that is stopping.
  let posted = 0
  workers.push(
    (async () => {
      for (let i = 0; running && i < 1_000_000; i++) {
        posted++
        try {
          const status = await postContact(origin, agent)
          if (status !== 303) failures.push(`POST /contact: ${status}`)
        } catch (error) {
          failures.push(`POST /contact: ${(error as Error).message}`)
        }
      }
    })(),
  )

  const countBefore = async (n: number) => {
    const target = sent + n
    while (sent < target) await new Promise((resolve) => setTimeout(resolve, 10))
  }
  /**
   * Ready is not enough: nginx's passive check keeps a failed upstream out for its
   * fail_timeout. Only once requests reach the new instance may the next one stop.
   */
  const servingAgain = async (server: ServerProcess) => {
    await waitUntil(() => server.logLines().filter((l) => l.msg === 'request completed').length >= 20, 'nginx sends it traffic', 30_000)
  }
  await countBefore(200)
  t.equal(await stop(a), 0, 'instance A drained and exited 0')
  a = await startInstance(portA)
  await servingAgain(a)
  t.equal(await stop(b), 0, 'instance B drained and exited 0')
  b = await startInstance(portB)
  await servingAgain(b)
  await countBefore(200)
  running = false
  await Promise.all(workers)

  console.log(`# rolling restart: ${sent} GETs and ${posted} form posts through nginx, ${failures.length} failed`)
  t.ok(sent >= 600, `${sent} requests sent`)
  t.ok(posted >= 50, `${posted} form posts sent`)
  t.same(failures, [], 'no request failed')
})

t.test('the client address the app sees', async (t) => {
  t.test('behind a trusted proxy: the real client, not what the client claims', async (t) => {
    const app = await startInstance(0)
    t.teardown(() => app.child.kill('SIGKILL'))
    const origin = await startNginx(t, [await listeningOrigin(app)])
    const status = await get(origin, '/items/424242', { localAddress: '127.0.0.2', headers: { 'x-forwarded-for': '6.6.6.6' } })
    t.equal(status, 200)
    await waitUntil(() => app.logLines().some((l) => l.req?.url === '/items/424242'), 'the request is logged')
    const line = app.logLines().find((l) => l.req?.url === '/items/424242')
    t.equal(line?.req.remoteAddress, '127.0.0.2', 'the client nginx saw (a spoofed X-Forwarded-For is overwritten)')
  })

  t.test('without TRUST_PROXY, forwarded headers are ignored: the peer is nginx', async (t) => {
    const app = await startInstance(0, { TRUST_PROXY: 'false' })
    t.teardown(() => app.child.kill('SIGKILL'))
    const origin = await startNginx(t, [await listeningOrigin(app)])
    await get(origin, '/items/434343', { localAddress: '127.0.0.2' })
    await waitUntil(() => app.logLines().some((l) => l.req?.url === '/items/434343'), 'the request is logged')
    const line = app.logLines().find((l) => l.req?.url === '/items/434343')
    t.equal(line?.req.remoteAddress, '127.0.0.1')
  })
})

/** Reads `path` through nginx until `early` is in it; resolves with what had come then and the whole body later. */
function readUntil(origin: string, path: string, early: string) {
  return new Promise<{ first: string; whole: Promise<string> }>((resolve, reject) => {
    const url = new URL(path, origin)
    request({ host: url.hostname, port: url.port, path: url.pathname, headers: { 'accept-encoding': 'gzip' } }, (res) => {
      // Each piece as nginx flushed it: a gzip stream decompresses as far as it has been flushed.
      const text = res.headers['content-encoding'] === 'gzip' ? res.pipe(createGunzip()) : res
      text.setEncoding('utf8')
      let body = ''
      let seen = false
      const whole = new Promise<string>((done) => text.on('end', () => done(body)))
      text.on('data', (chunk: string) => {
        body += chunk
        if (!seen && body.includes(early)) {
          seen = true
          resolve({ first: body, whole })
        }
      })
      text.on('end', () => seen || reject(new Error(`${path} ended without ${early}`)))
    })
      .on('error', reject)
      .end()
  })
}

t.test('streamed pages and page data stream through nginx with its default buffering', async (t) => {
  // The slow part comes long after the shell. nginx compresses (COMPRESSION off), and its gzip holds
  // a buffered response's bytes until the end: only X-Accel-Buffering: no lets the shell through.
  const server = await startInstance(0, { DEMO_SLOW_MS: '4000', COMPRESSION: 'off' })
  t.teardown(() => server.child.kill('SIGKILL'))
  const origin = await startNginx(t, [await listeningOrigin(server)], { defaultBuffering: true })
  const [page, data] = await Promise.all([
    readUntil(origin, '/items/7/stats', 'Counting the slow statistics'),
    readUntil(origin, '/_data/items/7/stats', '"routeId":"stats"'),
  ])
  t.notMatch(page.first, 'Median price', 'the shell with its fallback arrives while the slow part is pending')
  t.match(await page.whole, 'Median price', 'which follows in the same response')
  t.notMatch(data.first, '"median"', "the page data's first line arrives while the slow part is pending")
  t.match(await data.whole, '"median"', 'and the part follows on its own line')
})
