/**
 * Every environment variable the server reads, declared once. README.md's "Configuration" table is
 * written from here (scripts/config-table.ts); test/server/config-docs.test.ts fails when they differ.
 */
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { HostPattern } from '../allowed-hosts.js'
import type { ParsedDsn } from '../../../shared/framework/monitoring.js'
import * as parse from './parsers.js'

/**
 * A `literal` is parsed like a set value, so the table cannot state a different default than the one
 * applied; `text` is for a default no value spells.
 */
export type Default<T> = { readonly literal: string; readonly note?: string } | { readonly text: string; readonly value: () => T }

export interface Variable<N extends string = string, T = unknown> {
  readonly name: N
  readonly meaning: string
  readonly default: Default<T>
  readonly parse: (raw: string, name: string) => T
  /** Most variables take an empty value for unset; these parse it (and refuse it). */
  readonly emptyIsUnset?: false
}

function variable<const N extends string, T>(declaration: Variable<N, T>): Variable<N, T> {
  return declaration
}

/** A product's variable (config/product.ts): the same declaration as the framework's own. */
export const defineVariable = variable

const none = <T>(value: T) => ({ text: 'none', value: () => value })

/** dist/server/main.js -> dist/client. */
export function defaultClientDir(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../client')
}

/** In the README's order. */
export const VARIABLES = [
  variable({
    name: 'PORT',
    meaning: 'port to listen on (`0`: any free port, logged)',
    default: { literal: '3000' },
    parse: parse.parsePort,
    emptyIsUnset: false,
  }),
  variable({
    name: 'HOST',
    // Loopback unless told otherwise: exposing the port is the operator's decision.
    meaning: 'address to listen on; `0.0.0.0` to accept other machines (behind a proxy)',
    default: { literal: '127.0.0.1' },
    parse: parse.parseText,
  }),
  variable({
    name: 'LOG_LEVEL',
    meaning: '`fatal` `error` `warn` `info` `debug` `trace` `silent`',
    default: { literal: 'info' },
    parse: parse.parseLogLevel,
    emptyIsUnset: false,
  }),
  variable({
    name: 'LOG_BUFFER_BYTES',
    // Minutes of a busy server's request log, far below a container's memory.
    meaning:
      'the most log bytes that wait in memory while stdout is read slower than the server logs (a stalled log shipper); ' +
      'past it lines are dropped, and once stdout takes lines again a warning counts them (`droppedLines`, `droppedBytes`)',
    default: { literal: String(16 * 1024 * 1024), note: '16 MiB' },
    parse: parse.parseBytes,
  }),
  variable({
    name: 'TRUST_PROXY',
    meaning:
      '`true`, a hop count, or comma-separated proxy addresses/CIDRs (or `loopback`, `linklocal`, `uniquelocal`) ' +
      'whose `X-Forwarded-*` headers are believed',
    default: { text: 'off', value: () => false },
    parse: parse.parseTrustProxy,
  }),
  variable({
    name: 'ALLOWED_HOSTS',
    meaning:
      'comma-separated host names this server answers (`app.example.com`, `.example.com` with subdomains, ' +
      "`name:port` to pin a port, which a Host without one meets when it is the scheme's own, 443 or 80, `*` for any); " +
      'see [Security](docs/guide/security.md)',
    // Unset, server/framework/allowed-hosts.ts decides from HOST.
    default: { text: 'loopback names', value: (): HostPattern[] | undefined => undefined },
    parse: parse.parseHosts,
    emptyIsUnset: false,
  }),
  variable({
    name: 'ALLOWED_ORIGINS',
    meaning: "comma-separated origins (`https://app.example.com`) besides this site's own whose pages may post forms here",
    default: none<string[]>([]),
    parse: parse.parseOrigins,
  }),
  // Defaults for a real site: a person posts a form a few times a minute at most; a page's error reports come in bursts.
  variable({
    name: 'RATE_LIMIT_FORMS',
    meaning: 'form posts (to any page) per window per client address; over it, 429 with `Retry-After`. `0` or `off`: no limit',
    default: { literal: '30' },
    parse: parse.parseBudget,
  }),
  variable({
    name: 'RATE_LIMIT_MONITORING',
    meaning: 'envelopes through the `/monitoring` tunnel per window per client address; `0` or `off`: no limit',
    default: { literal: '300' },
    parse: parse.parseBudget,
  }),
  variable({
    name: 'RATE_LIMIT_WINDOW_MS',
    meaning: 'the window both budgets are counted over, in milliseconds',
    default: { literal: '60000' },
    parse: parse.parseWindow,
  }),
  variable({
    name: 'REDIS_URL',
    meaning:
      '`redis://host:6379` or `rediss://...`: the rate-limit counts are kept there, one budget shared by every instance; ' +
      'unset, each instance counts in its own memory. Redis unreachable: the limits let requests pass, with one warning a minute ' +
      '(see [`docs/deploy.md`](docs/deploy.md#limits-shared-by-all-instances)). With `SESSION_STORE=redis`, sessions are kept there too',
    default: none<string | undefined>(undefined),
    parse: parse.parseRedisUrl,
  }),
  variable({
    name: 'SENTRY_DSN',
    meaning: 'where errors go (browser and server); unset: no monitoring code runs at all',
    default: none<ParsedDsn | undefined>(undefined),
    parse: parse.parseDsnVariable,
  }),
  variable({
    name: 'SENTRY_ALLOWED_DSNS',
    meaning: 'comma-separated extra DSNs the `/monitoring` tunnel may forward to',
    default: none<ParsedDsn[]>([]),
    parse: parse.parseDsnList,
  }),
  variable({
    name: 'SENTRY_ENVIRONMENT',
    meaning: 'the environment tag of every event',
    default: { literal: 'production' },
    parse: parse.parseText,
  }),
  variable({
    name: 'SENTRY_RELEASE',
    meaning: 'the release of every event',
    default: { text: 'the build id', value: (): string | undefined => undefined },
    parse: parse.parseText,
  }),
  variable({
    name: 'SENTRY_TRACES_SAMPLE_RATE',
    meaning: 'share of page loads / navigations (browser) and requests (server) traced, 0 to 1',
    default: { literal: '0' },
    parse: parse.parseSampleRate,
    emptyIsUnset: false,
  }),
  variable({
    name: 'SENTRY_TUNNEL_UPSTREAM',
    meaning: "an origin that receives tunnelled envelopes instead of the DSN's host (relays, tests)",
    default: none<string | undefined>(undefined),
    parse: parse.parseUpstreamOrigin,
  }),
  variable({
    name: 'SHUTDOWN_DELAY_MS',
    meaning: 'after SIGTERM: how long readiness is 503 while the instance still serves',
    default: { literal: '5000' },
    parse: parse.parseMilliseconds,
  }),
  variable({
    name: 'SHUTDOWN_GRACE_MS',
    meaning: 'then: the most time in-flight requests get before the process exits anyway',
    default: { literal: '10000' },
    parse: parse.parseMilliseconds,
  }),
  variable({
    name: 'METRICS_PORT',
    meaning:
      'port of a second listener that answers `GET /metrics` in Prometheus text format (and nothing else); ' +
      'unset: no metrics are kept and the public port never answers `/metrics` (see [`docs/deploy.md`](docs/deploy.md#metrics))',
    default: none<number | undefined>(undefined),
    parse: parse.parsePort,
  }),
  variable({
    name: 'METRICS_HOST',
    meaning: 'address the metrics listener binds to; keep it where only the scraper reaches',
    default: { text: 'HOST', value: (): string | undefined => undefined },
    parse: parse.parseText,
  }),
  variable({
    name: 'MAX_EVENT_LOOP_DELAY_MS',
    meaning:
      'shed load when the event loop falls this far behind: new requests get 503 with `Retry-After` and `/api/ready` says 503 ' +
      'until it catches up (health and metrics keep answering); `0`: off (see [`docs/deploy.md`](docs/deploy.md#load-shedding))',
    default: { literal: '0' },
    parse: parse.parseMilliseconds,
  }),
  variable({
    name: 'MAX_EVENT_LOOP_UTILIZATION',
    meaning: 'shed load, the same way, when the event loop is busy more than this share of the time (`0.95`); `0`: off',
    default: { literal: '0' },
    parse: parse.parseRatio,
  }),
  variable({
    name: 'SERVER_TIMING',
    meaning:
      '`on`: dynamic pages, page data and form posts carry a `Server-Timing` header (guard, each loader, action, render, in ms), ' +
      "which the browser's developer tools show; it tells anyone how long each step took, so keep it off where that matters",
    default: { literal: 'off' },
    parse: parse.parseSwitch,
  }),
  variable({
    name: 'SESSION_SECRET',
    meaning:
      'at least 32 characters: the secret session cookies are sealed with (`SESSION_STORE=cookie`). Unset, sessions end ' +
      'when the process does and are not shared between instances (a warning says so)',
    // The key is made by server/framework/session.ts.
    default: { text: 'a key made at start', value: (): string | undefined => undefined },
    parse: parse.parseSecret,
  }),
  variable({
    name: 'SESSION_SECRET_PREVIOUS',
    meaning: 'the secret before, while rotating: sessions it sealed are still read, and rewritten with `SESSION_SECRET`',
    default: none<string | undefined>(undefined),
    parse: parse.parseSecret,
  }),
  variable({
    name: 'SESSION_STORE',
    meaning:
      '`cookie`: the whole session sealed in its cookie, no store; `memory`: kept in this process (one instance, development); ' +
      '`redis`: kept in Redis at `REDIS_URL`, shared by every instance. With a store the cookie holds only a random id, and ' +
      'a session ended on the server is over for every copy of its cookie. Redis unreachable: a request that carries or ' +
      'starts a session answers 503 (see [Sessions](docs/guide/sessions.md))',
    default: { literal: 'cookie' },
    parse: parse.parseSessionStore,
  }),
  variable({
    name: 'SESSION_IDLE_TIMEOUT',
    meaning: 'a session not used for this long is over: seconds, or `30m`, `12h`, `14d`',
    default: { literal: '14d' },
    parse: parse.parseDuration,
  }),
  variable({
    name: 'SESSION_ABSOLUTE_TIMEOUT',
    meaning: 'a session this old is over however much it is used (the visitor signs in again): seconds, or `12h`, `30d`',
    default: { literal: '30d' },
    parse: parse.parseDuration,
  }),
  variable({
    name: 'CLIENT_DIR',
    meaning: 'where the client build is (rarely needed); a folder without a build stops the server at start',
    default: { text: '`dist/client`', value: defaultClientDir },
    parse: parse.parseText,
  }),
  variable({
    name: 'UPLOAD_DIR',
    meaning:
      'an absolute path to a writable folder where uploaded files wait while their action runs ' +
      '(see [Uploads](docs/guide/uploads.md)); on Kubernetes, mount a writable `emptyDir` there',
    default: { text: "the system's temp folder", value: tmpdir },
    parse: parse.parseUploadDir,
  }),
  variable({
    name: 'UPLOAD_MAX_BYTES',
    // The demo's largest file (5 MiB) with room to spare.
    meaning: 'the most bytes one form with files may have in all, whatever its fields allow',
    default: { literal: String(10 * 1024 * 1024), note: '10 MiB' },
    parse: parse.parseBytes,
  }),
  variable({
    name: 'COMPRESSION',
    meaning:
      '`on`: answers are compressed in the process (brotli or gzip by `Accept-Encoding`; assets precompressed by the build, ' +
      'static pages once); `off` for a proxy that compresses instead',
    default: { literal: 'on' },
    parse: parse.parseSwitch,
  }),
  variable({
    name: 'CROSS_ORIGIN_OPENER_POLICY',
    meaning:
      'a `Cross-Origin-Opener-Policy` for every answer: `same-origin`, `same-origin-allow-popups`, `noopener-allow-popups` ' +
      'or `unsafe-none` (no reporting parameters). With `same-origin`, no window of another site keeps a reference to ours; ' +
      'it costs a page opened in a new tab about 40 ms of first paint (a new renderer process). Pages cannot set it one by one. ' +
      'See [Security](docs/guide/security.md)',
    default: { literal: 'off' },
    parse: parse.parseOpenerPolicy,
  }),
  variable({
    name: 'DEMO_SLOW_MS',
    meaning:
      "how long the demo's slow statistics (`/items/:id/stats`, a deferred part) take to arrive; " +
      'at or over the render timeout (10 s) they fail, as a part still pending then does',
    default: { literal: '500' },
    parse: parse.parseMilliseconds,
  }),
] as const

export type Values = {
  [V in (typeof VARIABLES)[number] as V['name']]: V extends Variable<string, infer T> ? T : never
}

export function defaultText(variable: Variable): string {
  const shown = variable.default
  if ('text' in shown) return shown.text
  return `\`${shown.literal}\`` + (shown.note ? ` (${shown.note})` : '')
}
