/**
 * Builds an app for a test, ready and torn down with the test. Log lines are captured
 * (parsed) so tests can assert what the operator would read.
 */
import { Writable } from 'node:stream'
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import { application } from '../../server/application.js'
import { buildApp } from '../../server/framework/app.js'
import type { LingerBounds } from '../../server/framework/lingering-close.js'
import type { ErrorReporter } from '../../server/framework/monitoring/error-reporter.js'
import { loadConfig, type AppConfig } from '../../server/framework/config.js'
import { fixtureApplication } from '../fixtures/app/server.js'
import { buildFor, buildKindOf, type BuiltApp, type ClientBuild } from './build.js'

type Test = { teardown(fn: () => unknown): void }

export interface LogLine {
  readonly level: number
  readonly msg: string
  readonly requestId?: string
  readonly reqId?: string
  readonly digest?: string
  readonly err?: { message: string; stack: string; type: string }
  readonly [key: string]: unknown
}

export interface TestApp {
  readonly app: FastifyInstance
  readonly build: ClientBuild
  readonly logs: LogLine[]
}

/**
 * The tests' environment: none but these, so a test never sees the machine's variables
 * and every other value is the declared default (server/framework/config/variables.ts).
 */
export const TEST_ENV: Readonly<Record<string, string>> = {
  PORT: '0',
  SENTRY_ENVIRONMENT: 'test',
  // Off unless a test turns them on: tests post far more often than people do.
  RATE_LIMIT_FORMS: 'off',
  RATE_LIMIT_MONITORING: 'off',
  SHUTDOWN_DELAY_MS: '0',
  SHUTDOWN_GRACE_MS: '1000',
}

/** The configuration a test app runs with: TEST_ENV as loadConfig reads it, the given build, then the test's own. */
export function testConfig(clientDir: string, overrides: Partial<AppConfig> = {}): AppConfig {
  const loaded = loadConfig(TEST_ENV, application.configVariables)
  return { ...loaded, clientDir, ...overrides, product: { ...loaded.product, ...overrides.product } }
}

export interface TestAppOptions {
  readonly config?: Partial<AppConfig>
  /** Extra /api route modules, registered after the production ones. */
  readonly apiRoutes?: readonly FastifyPluginAsync[]
  readonly renderTimeoutMs?: number
  readonly tunnelTimeoutMs?: number
  /** How much and how long a connection closed under an unread body is read first (server/framework/lingering-close.ts). */
  readonly lingerBounds?: LingerBounds
  readonly errorReporter?: ErrorReporter
  readonly rateLimitWarnIntervalMs?: number
  readonly sessionWarnIntervalMs?: number
  /** The time sessions are measured by: a test moves it to see them end, without waiting. */
  readonly sessionClock?: () => number
  readonly sheddingSampleIntervalMs?: number
}

/**
 * The app `which`, ready (Fastify's inject): on the build for tests that read what the
 * server sends, whose scripts no browser could run (test/helpers/build.ts).
 */
export function createTestApp(t: Test, which: BuiltApp = 'production', options: TestAppOptions = {}): Promise<TestApp> {
  return startTestApp(t, which, false, options)
}

async function startTestApp(t: Test, which: BuiltApp, forBrowser: boolean, options: TestAppOptions): Promise<TestApp> {
  const build = await buildFor(buildKindOf(which, forBrowser))
  const logs: LogLine[] = []
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) logs.push(JSON.parse(line) as LogLine)
      done()
    },
  })
  const app = buildApp(testConfig(build.clientDir, options.config), {
    logStream,
    // The product's /api routes in every app (health and readiness), then the test's own.
    application: {
      definition: (which === 'fixture' ? fixtureApplication : application).definition,
      apiRoutes: [...application.apiRoutes, ...(options.apiRoutes ?? [])],
      configVariables: application.configVariables,
    },
    ...(options.renderTimeoutMs ? { renderTimeoutMs: options.renderTimeoutMs } : {}),
    ...(options.tunnelTimeoutMs ? { tunnelTimeoutMs: options.tunnelTimeoutMs } : {}),
    ...(options.lingerBounds ? { lingerBounds: options.lingerBounds } : {}),
    ...(options.errorReporter ? { errorReporter: options.errorReporter } : {}),
    ...(options.rateLimitWarnIntervalMs ? { rateLimitWarnIntervalMs: options.rateLimitWarnIntervalMs } : {}),
    ...(options.sessionWarnIntervalMs ? { sessionWarnIntervalMs: options.sessionWarnIntervalMs } : {}),
    ...(options.sessionClock ? { sessionClock: options.sessionClock } : {}),
    ...(options.sheddingSampleIntervalMs ? { sheddingSampleIntervalMs: options.sheddingSampleIntervalMs } : {}),
  })
  // Open, the app holds the process alive as a listening server would: an injected
  // request has no socket, and a deferred part's timer is unref'd (so a server stops
  // without waiting for it), so a test awaiting a part would otherwise see the process
  // end under it, its test unfinished.
  const held = setInterval(() => {}, 2 ** 31 - 1)
  // A connection the test left open (a body it never read) would hold the close until
  // the client lets go: the test is over, so its connections go with the app.
  t.teardown(async () => {
    clearInterval(held)
    const closing = app.close()
    app.server.closeAllConnections()
    await closing
  })
  await app.ready()
  return { app, build, logs }
}

/** `createTestApp` on a real 127.0.0.1 port, for clients that read what it sends (raw HTTP, fetch); closed with the test. */
export async function listenTestApp(t: Test, which: BuiltApp = 'production', options: TestAppOptions = {}): Promise<TestApp & { origin: string }> {
  return listen(await startTestApp(t, which, false, options))
}

/** The app on a real 127.0.0.1 port, on a build whose scripts Chromium runs (browser tests); closed with the test. */
export async function browserTestApp(t: Test, which: BuiltApp = 'production', options: TestAppOptions = {}): Promise<TestApp & { origin: string }> {
  return listen(await startTestApp(t, which, true, options))
}

async function listen(testApp: TestApp): Promise<TestApp & { origin: string }> {
  const address = await testApp.app.listen({ host: '127.0.0.1', port: 0 })
  return { ...testApp, origin: address }
}
