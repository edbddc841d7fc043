/**
 * A stand-in for Sentry's ingest: a Fastify app on 127.0.0.1 that takes envelopes at
 * `[<prefix>]/api/<project>/envelope/`, gunzips them when asked, parses them with
 * @sentry/core's own parser, and records what came. It can answer 429 with rate-limit
 * headers, or hang, on demand.
 */
import { gunzipSync } from 'node:zlib'
import { parseEnvelope, type Envelope } from '@sentry/core'
import Fastify from 'fastify'
import { waitUntil } from './wait.js'

type Test = { teardown(fn: () => unknown): void }

export interface ReceivedEnvelope {
  readonly path: string
  readonly project: string
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
  /** The bytes as they arrived (still gzipped if they came gzipped). */
  readonly raw: Buffer
  readonly envelope: Envelope
}

export type IngestMode = 'accept' | 'rate-limit' | 'hang'

export interface FakeIngest {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string
  readonly received: ReceivedEnvelope[]
  mode: IngestMode
  /** The items of every envelope received so far, with their envelope. */
  items(type?: string): Array<{ type: string; payload: any; envelope: ReceivedEnvelope }>
  /** Waits until `condition` holds for what was received. */
  waitFor(condition: (ingest: FakeIngest) => boolean, what: string, timeoutMs?: number): Promise<void>
}

export async function startFakeIngest(t: Test): Promise<FakeIngest> {
  const app = Fastify({ logger: false, bodyLimit: 50 * 1024 * 1024 })
  const hanging = new Set<() => void>()
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))

  const ingest: FakeIngest = {
    origin: '',
    received: [],
    mode: 'accept',
    items(type) {
      return this.received.flatMap((envelope) =>
        envelope.envelope[1]
          .map(([item, payload]) => ({ type: String(item.type), payload: readable(String(item.type), payload), envelope }))
          .filter((item) => type === undefined || item.type === type),
      )
    },
    waitFor(condition, what, timeoutMs) {
      return waitUntil(() => condition(this), what, timeoutMs)
    },
  }

  app.post('/*', async (request, reply) => {
    const path = request.url.split('?')[0]!
    const match = /\/api\/(\d+)\/envelope\/$/.exec(path)
    if (!match) return reply.code(404).send({ detail: 'not an envelope endpoint' })
    const raw = request.body as Buffer
    const bytes = request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw
    ingest.received.push({ path, project: match[1]!, headers: request.headers, raw, envelope: parseEnvelope(bytes) })
    if (ingest.mode === 'hang') {
      await new Promise<void>((resolve) => hanging.add(resolve))
      return reply.code(200).send({})
    }
    if (ingest.mode === 'rate-limit') {
      return reply.code(429).header('retry-after', '60').header('x-sentry-rate-limits', '60:error;transaction:organization').send({})
    }
    return reply.code(200).send({ id: 'fake' })
  })

  const origin = await app.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(async () => {
    for (const release of hanging) release()
    await app.close()
  })
  return Object.assign(ingest, { origin })
}

/** JSON item payloads as objects, however they were framed (with a length they parse as bytes). */
function readable(type: string, payload: unknown): unknown {
  if (!(payload instanceof Uint8Array) || type === 'attachment' || type.startsWith('replay')) return payload
  try {
    return JSON.parse(new TextDecoder().decode(payload))
  } catch {
    return payload
  }
}

/** Serializes an envelope the way the SDKs do: header line, then item header and payload lines. */
export function envelopeBytes(header: object, items: Array<[object, string | Uint8Array]>): Buffer {
  const parts: Buffer[] = [Buffer.from(JSON.stringify(header) + '\n')]
  for (const [itemHeader, payload] of items) {
    const body = typeof payload === 'string' ? Buffer.from(payload) : Buffer.from(payload)
    parts.push(Buffer.from(JSON.stringify({ ...itemHeader, length: body.length }) + '\n'), body, Buffer.from('\n'))
  }
  return Buffer.concat(parts)
}
