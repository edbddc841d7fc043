/**
 * Sending a page's deferred parts: as scripts in the streamed HTML, as lines in the page
 * data, or, for a crawler, waited for before the page is rendered whole.
 */
import { STREAMED_HEADER } from './conditional.js'
import { pipeline, Readable, type Writable } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { DEFERRED_DATA_TYPE, DEFERRED_GLOBAL, type DeferredOutcome } from '../../../shared/framework/deferred.js'
import { escapeHtml, serializeForScript } from '../../../shared/framework/html.js'
import type { RenderPayload } from '../../../shared/framework/page-payload.js'
import { compressingStream, negotiateEncoding } from '../compression.js'
import { NO_STORE } from '../error-responses.js'
import { outcomesOf } from './deferred-parts.js'

// Crawlers and link previews read the HTML once, so they get every part in place.
// `(?<!cu)`: phones named CUBOT are not crawlers (as the isbot package has it).
const CRAWLER =
  /(?<!cu)bot\b|crawl|spider|slurp|facebookexternalhit|facebookcatalog|embedly|quora link preview|outbrain|pinterest|vkshare|w3c_validator|whatsapp|lighthouse|bingpreview|yandex|baiduspider/i

export function isCrawler(request: FastifyRequest): boolean {
  const agent = request.headers['user-agent']
  return typeof agent === 'string' && CRAWLER.test(agent)
}

export function deferredOutcomes(payload: RenderPayload): Array<Promise<DeferredOutcome>> {
  return payload.deferred ? outcomesOf({ data: payload.kind === 'page' ? payload.data : undefined, layouts: payload.layouts }, payload.deferred) : []
}

/** The script removes itself, leaving nothing for hydration to meet. */
export function outcomeScript(outcome: DeferredOutcome, nonce: string | undefined): string {
  const nonceAttribute = nonce ? ` nonce="${escapeHtml(nonce)}"` : ''
  return `<script${nonceAttribute}>(self.${DEFERRED_GLOBAL}=self.${DEFERRED_GLOBAL}||[]).push(${serializeForScript(outcome)});document.currentScript.remove()</script>`
}

/**
 * Writes each outcome into a document stream when it settles. Between two of React's
 * writes is always between two whole pieces of HTML (React writes a flush synchronously).
 */
export function partWriter(outcomes: ReadonlyArray<Promise<DeferredOutcome>>, nonce: string | undefined, first: string) {
  const written = new Set<number>()
  let firstWritten = false
  let ending = false
  const open = (body: Writable) => !ending && !body.writableEnded && !body.destroyed
  return {
    /** Once React's shell is in: `first` (the page's script), then each part as it settles. */
    start(body: Writable): void {
      if (!open(body)) return // React wrote the whole page at once: `rest` has it all
      if (first) body.write(first)
      firstWritten = true
      for (const [index, outcome] of outcomes.entries()) {
        void outcome.then((settled) => {
          if (!open(body)) return
          written.add(index)
          body.write(outcomeScript(settled, nonce))
        })
      }
    },
    /** What is not written yet, once every part has settled. */
    async rest(): Promise<string> {
      ending = true
      const settled = await Promise.all(outcomes)
      const scripts = settled.map((outcome, index) => (written.has(index) ? '' : outcomeScript(outcome, nonce))).join('')
      return (firstWritten ? '' : first) + scripts
    },
  }
}

/**
 * Page data with deferred parts: one JSON value per line, the payload first (`json`, made
 * before anything is sent), then each part as it settles; compressed here so that each
 * line is flushed.
 */
export function sendDeferredData(reply: FastifyReply, payload: RenderPayload, json: string, compression: boolean): FastifyReply {
  const outcomes = deferredOutcomes(payload)
  async function* lines() {
    yield `${json}\n`
    const pending = new Map(outcomes.map((outcome, index) => [index, outcome.then((settled) => ({ index, settled }))]))
    while (pending.size > 0) {
      const { index, settled } = await Promise.race(pending.values())
      pending.delete(index)
      // Its value was checked for server-only values when it arrived (./deferred-parts.ts).
      yield `${JSON.stringify(settled)}\n`
    }
  }
  reply.header('cache-control', NO_STORE).header(STREAMED_HEADER, 'no').code(payload.status).type(`${DEFERRED_DATA_TYPE}; charset=utf-8`)
  const encoding = compression ? negotiateEncoding(reply.request.headers['accept-encoding']) : undefined
  const body = Readable.from(lines(), { objectMode: false })
  if (!encoding) return reply.send(body)
  const compressed = compressingStream(encoding)
  pipeline(body, compressed, () => {})
  return reply.header('content-encoding', encoding).header('vary', 'accept-encoding').send(compressed)
}
