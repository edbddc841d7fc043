/**
 * A local OTLP/HTTP receiver, as the Sentry tests use a fake ingest: it keeps every span
 * the server exports (JSON, as the exporter sends it), flattened with its attributes.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Test } from 'tap'
import { waitUntil } from './wait.js'

export interface ReceivedSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string | undefined
  readonly name: string
  readonly kind: number
  readonly attributes: Readonly<Record<string, string | number | boolean>>
  /** 0 unset, 1 ok, 2 error. */
  readonly status: number
  readonly service: string | undefined
}

export interface OtlpReceiver {
  readonly url: string
  /** What came as JSON (`http/json`), span by span. */
  readonly spans: ReceivedSpan[]
  /** What came as protobuf (`http/protobuf`), whole: tests look for the strings in it. */
  readonly protobufBodies: Buffer[]
  waitFor(condition: (spans: readonly ReceivedSpan[]) => boolean, what: string): Promise<void>
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number }
type KeyValue = { key: string; value: AnyValue }

const valueOf = (value: AnyValue) =>
  value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue ?? ''))
const attributesOf = (list: KeyValue[] | undefined) => Object.fromEntries((list ?? []).map(({ key, value }) => [key, valueOf(value)]))

export async function startOtlpReceiver(t: Test): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = []
  const protobufBodies: Buffer[] = []
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      if (request.method === 'POST' && request.url === '/v1/traces' && request.headers['content-type'] === 'application/x-protobuf') {
        protobufBodies.push(Buffer.concat(chunks))
      } else if (request.method === 'POST' && request.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans: Array<{ resource?: { attributes?: KeyValue[] }; scopeSpans: Array<{ spans: Array<Record<string, any>> }> }>
        }
        for (const { resource, scopeSpans } of body.resourceSpans) {
          const service = attributesOf(resource?.attributes)['service.name'] as string | undefined
          for (const scope of scopeSpans) {
            for (const span of scope.spans) {
              spans.push({
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId || undefined,
                name: span.name,
                kind: span.kind,
                attributes: attributesOf(span.attributes),
                status: span.status?.code ?? 0,
                service,
              })
            }
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    protobufBodies,
    waitFor: (condition, what) => waitUntil(() => condition(spans), what),
  }
}
