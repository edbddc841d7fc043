/**
 * Compression of what the process sends (docs/decisions/016-compression.md): the encodings and
 * levels, chosen by measurement, in one place. Assets come compressed from the build.
 */
import zlib from 'node:zlib'
import { promisify } from 'node:util'
import type { Transform } from 'node:stream'
import fastifyCompress from '@fastify/compress'
import type { FastifyInstance } from 'fastify'

export type Encoding = 'br' | 'gzip'

/** Per response: fast enough to keep at least 0.8 of the uncompressed throughput. */
export const DYNAMIC_BROTLI_QUALITY = 2
export const DYNAMIC_GZIP_LEVEL = 3

/**
 * 256 KiB instead of 4 MiB: each stream allocates its window, and after 100,000 answers the default
 * left the server at 286 MB RSS and this at 224 MB, for no loss on pages far smaller than the window.
 */
export const DYNAMIC_BROTLI_WINDOW_BITS = 18

export const DYNAMIC_BROTLI_PARAMS = {
  [zlib.constants.BROTLI_PARAM_QUALITY]: DYNAMIC_BROTLI_QUALITY,
  [zlib.constants.BROTLI_PARAM_LGWIN]: DYNAMIC_BROTLI_WINDOW_BITS,
} as const

/** Below it, the encoding would cost more than it saves. */
export const COMPRESSION_THRESHOLD_BYTES = 1024

/**
 * br on a tie. The request's header is rewritten to this one choice before anything encodes, so
 * @fastify/compress, @fastify/static and the page cache never disagree (theirs read `*` as gzip,
 * even where gzip is refused). Nearly every request sends the header before it: decided once.
 */
export function negotiateEncoding(acceptEncoding: string | undefined): Encoding | undefined {
  if (acceptEncoding === undefined) return undefined
  // Already rewritten, read again by the page handlers: the one remembered stays the browsers' own.
  if (acceptEncoding === 'br' || acceptEncoding === 'gzip') return acceptEncoding
  if (acceptEncoding === 'identity') return undefined
  if (acceptEncoding !== lastNegotiation.header) lastNegotiation = { header: acceptEncoding, chosen: chooseEncoding(acceptEncoding) }
  return lastNegotiation.chosen
}

let lastNegotiation: { header: string; chosen: Encoding | undefined } = { header: '', chosen: undefined }

const CODING = /^\s*([!#$%&'*+.^_`|~0-9a-z-]+)\s*(?:;\s*q\s*=\s*(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)\s*)?$/i

function chooseEncoding(header: string): Encoding | undefined {
  const weights = new Map<string, number>()
  for (const part of header.split(',')) {
    const match = CODING.exec(part)
    if (!match) continue // not a coding, or a weight that is not one: as if not sent
    const coding = match[1]!.toLowerCase() === 'x-gzip' ? 'gzip' : match[1]!.toLowerCase()
    if (!weights.has(coding)) weights.set(coding, match[2] === undefined ? 1 : Number(match[2]))
  }
  const weightOf = (coding: Encoding) => weights.get(coding) ?? weights.get('*') ?? 0
  const br = weightOf('br')
  const gzip = weightOf('gzip')
  if (br > 0 && br >= gzip) return 'br'
  return gzip > 0 ? 'gzip' : undefined
}

export function acceptedEncodingHeader(acceptEncoding: string | undefined): string | undefined {
  return acceptEncoding === undefined ? undefined : (negotiateEncoding(acceptEncoding) ?? 'identity')
}

const brotli = promisify(zlib.brotliCompress)
const gzip = promisify(zlib.gzip)

/**
 * URLs are unbounded and the cache is not, so a miss must stay cheap: brotli 5 costs about 0.3 ms
 * on a 29 KB page where 11 costs 25 ms, for 4.0 KB against 2.9 KB.
 */
export const STATIC_BROTLI_QUALITY = 5
export const STATIC_GZIP_LEVEL = 9

/** Off the event loop, so a stream of new URLs cannot stall answers. */
export function compressOnce(body: string | Buffer, encoding: Encoding): Promise<Buffer> {
  return encoding === 'br'
    ? brotli(body, {
        params: { [zlib.constants.BROTLI_PARAM_QUALITY]: STATIC_BROTLI_QUALITY, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(body) },
      })
    : gzip(body, { level: STATIC_GZIP_LEVEL })
}

/** Flushes after every chunk, so the shell goes out before the rest is rendered. */
export function compressingStream(encoding: Encoding): Transform {
  return encoding === 'br'
    ? zlib.createBrotliCompress({
        flush: zlib.constants.BROTLI_OPERATION_FLUSH,
        params: DYNAMIC_BROTLI_PARAMS,
      })
    : zlib.createGzip({ flush: zlib.constants.Z_SYNC_FLUSH, level: DYNAMIC_GZIP_LEVEL })
}

export function registerCompression(app: FastifyInstance): void {
  app.addHook('onRequest', function settleAcceptEncoding(request, _reply, done) {
    const accepted = acceptedEncodingHeader(request.headers['accept-encoding'])
    if (accepted !== undefined) request.headers['accept-encoding'] = accepted
    done()
  })
  app.register(fastifyCompress, {
    encodings: ['br', 'gzip'],
    threshold: COMPRESSION_THRESHOLD_BYTES,
    brotliOptions: { params: DYNAMIC_BROTLI_PARAMS },
    zlibOptions: { level: DYNAMIC_GZIP_LEVEL },
    // Request bodies are taken as sent: no form or envelope arrives compressed.
    globalDecompression: false,
  })
}
