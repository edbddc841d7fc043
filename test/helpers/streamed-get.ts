/**
 * A GET over a real connection whose body is recorded as it arrives (decoded from brotli
 * when asked): the streaming tests see what comes first and what comes later, which
 * app.inject, waiting for the whole answer, cannot show.
 */
import { request } from 'node:http'
import zlib from 'node:zlib'

export interface StreamedGet {
  /** Resolves when the body has ended. */
  readonly done: Promise<void>
  /** The body so far. */
  text(): string
  status(): number
  headers(): Record<string, unknown>
  /** Closes the connection (an answer the test will not wait for). */
  close(): void
}

export function getStreamed(url: string, headers: Record<string, string> = {}, options: { readonly brotli?: boolean } = {}): StreamedGet {
  let text = ''
  let status = 0
  let responseHeaders: Record<string, unknown> = {}
  let sent: ReturnType<typeof request> | undefined
  const done = new Promise<void>((resolve, reject) => {
    sent = request(url, { headers: options.brotli ? { ...headers, 'accept-encoding': 'br' } : headers }, (res) => {
      status = res.statusCode ?? 0
      responseHeaders = res.headers
      const body = options.brotli ? res.pipe(zlib.createBrotliDecompress()) : res
      body.setEncoding('utf8')
      body.on('data', (chunk: string) => (text += chunk))
      body.on('end', resolve)
      body.on('error', reject)
    })
    sent.on('error', reject).end()
  })
  return { done, text: () => text, status: () => status, headers: () => responseHeaders, close: () => sent?.destroy() }
}
