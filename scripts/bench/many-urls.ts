/**
 * The server's RSS after 100,000 requests over 10,000 distinct URLs, on a server of its
 * own: what 10,000 URLs leave behind, not the peak of the loads before it (a process's
 * RSS does not shrink back after a peak).
 */
import { Agent, request } from 'node:http'
import { rssMb, startApp, stop } from './processes.js'

export interface ManyUrlsFigures {
  readonly run: { readonly errors: number; readonly seconds: number }
  readonly rssAfterMb: number
}

/**
 * 100,000 GETs over 10,000 distinct URLs, 50 at a time: half dynamic item lists, half
 * static pages with a query string each (every one a new entry of the static cache).
 */
async function manyUrls(origin: string, total: number): Promise<{ errors: number; seconds: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 50 })
  let next = 0
  let errors = 0
  const started = performance.now()
  const one = (i: number) =>
    new Promise<void>((resolve) => {
      const target = i % 2 === 0 ? `/items/${((i / 2) % 5000) + 1}` : `/about?v=${((i - 1) / 2) % 5000}`
      request(origin + target, { agent, headers: { 'accept-encoding': 'br, gzip' } }, (res) => {
        if (res.statusCode !== 200) errors++
        res.resume()
        res.on('end', resolve)
      })
        .on('error', () => {
          errors++
          resolve()
        })
        .end()
    })
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (next < total) await one(next++)
    }),
  )
  agent.destroy()
  return { errors, seconds: (performance.now() - started) / 1000 }
}

export async function measureManyUrls(): Promise<ManyUrlsFigures> {
  const app = await startApp()
  const run = await manyUrls(app.origin, 100_000)
  const rssAfterMb = rssMb(app.child.pid!)
  await stop(app.child)
  return { run, rssAfterMb }
}
