/** First-load JavaScript of /items/7 and its HTML, gzip -9 and as sent with brotli. */
import { gzipSync } from 'node:zlib'
import { sentBytes } from './load.js'

export interface FirstLoadBytes {
  readonly firstLoadJsGzip: number
  readonly htmlBytes: number
  readonly firstLoadJsBrotliSent: number
  readonly htmlBrotliSent: number
}

/** Every script /items/7 loads before it is interactive: its module script and modulepreloads. */
function scriptsOf(html: string): Set<string> {
  return new Set([...html.matchAll(/<(?:link rel="modulepreload"|script type="module") (?:href|src)="([^"]+)"/g)].map((m) => m[1]!))
}

export async function measureFirstLoadBytes(origin: string): Promise<FirstLoadBytes> {
  const html = await (await fetch(`${origin}/items/7`)).text()
  const scripts = scriptsOf(html)
  let firstLoadJsGzip = 0
  for (const file of scripts) firstLoadJsGzip += gzipSync(Buffer.from(await (await fetch(origin + file)).arrayBuffer()), { level: 9 }).length
  const htmlBytes = Buffer.byteLength(html)
  // As sent to a browser that takes brotli (fetch would decode: count the bytes on the wire).
  let firstLoadJsBrotliSent = 0
  for (const file of scripts) firstLoadJsBrotliSent += await sentBytes(origin + file, 'br')
  const htmlBrotliSent = await sentBytes(`${origin}/items/7`, 'br')
  return { firstLoadJsGzip, htmlBytes, firstLoadJsBrotliSent, htmlBrotliSent }
}
