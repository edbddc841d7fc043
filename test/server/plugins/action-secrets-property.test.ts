/**
 * Secret fields, as a property: across generated submissions of the fixture's secret
 * fields (any Unicode, HTML's special characters, long values), refused every way a
 * form can be (by the action, by a file check, by the action's throwing a fault, by a
 * multipart body where none is taken), answered as a page or as JSON, posted over a
 * real connection so @sentry/node's HTTP instrumentation sees the bodies, the secret
 * never appears in the answer's body or headers, in a log line, or in what reaches the
 * (fake) Sentry ingest.
 */
import * as Sentry from '@sentry/node'
import fc from 'fast-check'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t from 'tap'
import { sentryNodeOptions } from '../../../server/framework/monitoring/sentry-options.js'
import { sentryReporter } from '../../../server/framework/monitoring/sentry-reporter.js'
import { parseDsn } from '../../../shared/framework/monitoring.js'
import { listenTestApp } from '../../helpers/app.js'
import { formsOf } from '../../helpers/secret-forms.js'
import { startFakeIngest } from '../../helpers/fake-ingest.js'
import { fileOf, MULTIPART_TYPE, multipartBody, type FormPart } from '../../helpers/multipart.js'

type Kind = 'signIn' | 'deposit-refused' | 'deposit-bad-file' | 'explode' | 'signIn-multipart' | 'unlock'
interface Submission {
  readonly kind: Kind
  readonly json: boolean
  /** Around the run's unique marker: generated text of every sort. */
  readonly before: string
  readonly after: string
  readonly other: string
}

const text = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: fc.constantFrom('<', '>', '&', '"', "'", '/', '\\', '%', '+', '=', ' ', '\u2028', '\r\n', '\t'), maxLength: 30 }),
  fc.string({ unit: 'grapheme-ascii', minLength: 2000, maxLength: 6000 }),
)
const submission: fc.Arbitrary<Submission> = fc.record({
  kind: fc.constantFrom<Kind>('signIn', 'deposit-refused', 'deposit-bad-file', 'explode', 'signIn-multipart', 'unlock'),
  json: fc.boolean(),
  before: text,
  after: text,
  other: fc.string({ unit: 'grapheme', maxLength: 60 }),
})

t.test('a secret field never comes back, nor reaches a log line or a report', async (t) => {
  const ingest = await startFakeIngest(t)
  const dsn = parseDsn(`http://publickey@${new URL(ingest.origin).host}/1`)!
  Sentry.init(sentryNodeOptions({ dsn, allowedDsns: [dsn], environment: 'test', release: undefined, tracesSampleRate: 0, tunnelUpstream: undefined }))
  t.teardown(() => Sentry.close(2_000))
  const dir = mkdtempSync(path.join(tmpdir(), 'secret-uploads-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const { origin, logs } = await listenTestApp(t, 'fixture', { errorReporter: sentryReporter, config: { uploadDir: dir } })
  const events = () => ingest.items('event')

  let run = 0
  const counts: Record<string, number> = {}
  await fc.assert(
    fc.asyncProperty(submission, async ({ kind, json, before, after, other }) => {
      // A marker no other field or page could hold, so what is found is the secret.
      const secret = `${before}Zq${++run}xSeCrEt${after}`
      const fields = (entries: Record<string, string>) => Object.entries(entries).map(([name, value]): FormPart => ({ name, value }))
      let body: string | Buffer
      let path = '/strongbox'
      let multipart = false
      const png: FormPart = { name: 'picture', filename: 'a.png', type: 'image/png', content: fileOf('png', 1000) }
      const pdf: FormPart = { name: 'picture', filename: 'a.png', type: 'image/png', content: fileOf('pdf', 1000) }
      switch (kind) {
        case 'signIn':
          body = new URLSearchParams({ _action: 'signIn', email: other, password: secret, next: other }).toString()
          break
        case 'explode':
          body = new URLSearchParams({ _action: 'explode', email: other, password: secret }).toString()
          break
        case 'unlock':
          path = '/shelf/one'
          body = new URLSearchParams({ _action: 'unlock', code: secret, hint: other }).toString()
          break
        case 'signIn-multipart':
          multipart = true
          body = multipartBody(fields({ _action: 'signIn', email: other, password: secret }))
          break
        case 'deposit-refused':
        case 'deposit-bad-file':
          multipart = true
          body = multipartBody([
            ...fields({ _action: 'deposit', label: kind === 'deposit-refused' ? 'refuse' : other, pin: secret }),
            kind === 'deposit-refused' ? png : pdf,
          ])
          break
      }
      const eventsBefore = events().length
      const logsBefore = logs.length
      const res = await fetch(origin + path, {
        method: 'POST',
        headers: {
          origin,
          'content-type': multipart ? MULTIPART_TYPE : 'application/x-www-form-urlencoded',
          ...(json ? { accept: 'application/json' } : {}),
        },
        body: typeof body === 'string' ? body : new Uint8Array(body),
        redirect: 'manual',
      })
      const answer = await res.text()
      const status = res.status
      counts[`${kind} ${json ? 'json' : 'html'} ${status}`] = (counts[`${kind} ${json ? 'json' : 'html'} ${status}`] ?? 0) + 1
      // (Checked by throwing: fast-check reports the smallest failing submission, not one assertion per run.)
      if (kind === 'explode') {
        if (status !== 500) throw new Error(`explode answered ${status}`)
        await ingest.waitFor(() => events().length > eventsBefore, 'the fault reported')
      } else if (kind === 'signIn' || kind === 'unlock' || kind === 'deposit-refused') {
        // Refused by the action: the other values come back (so a secret among them would be seen).
        if (status !== 422) throw new Error(`${kind} answered ${status}`)
        const kept = kind === 'deposit-refused' ? 'refuse' : other
        if (json && !Object.values(JSON.parse(answer).values).includes(kept)) throw new Error(`${kind}: the other values did not come back`)
      }
      const headers = [...res.headers].map(([name, value]) => `${name}: ${value}`).join('\n')
      const logText = logs
        .slice(logsBefore)
        .map((line) => JSON.stringify(line))
        .join('\n')
      const reports = events()
        .slice(eventsBefore)
        .map((item) => JSON.stringify(item.payload))
        .join('\n')
      const marker = `Zq${run}xSeCrEt`
      for (const [where, seen] of [
        ['the answer', answer],
        ['its headers', headers],
        ['the log', logText],
        ['the reports', reports],
      ] as const) {
        if (seen.includes(marker) || formsOf(secret).some((form) => seen.includes(form))) {
          throw new Error(`the secret (${kind}, ${json ? 'JSON' : 'HTML'}, ${status}) is in ${where}`)
        }
      }
    }),
    { numRuns: 100 },
  )
  t.ok(events().length > 0, 'faults were reported: the ingest was looked at')
  t.comment(JSON.stringify(counts))
})
