import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t from 'tap'
import { ConfigError, defineConfig, defineVariable, loadConfig } from '../../server/framework/config.js'

t.test('defaults: port 3000 on loopback, info logs, no trusted proxy', async (t) => {
  const config = loadConfig({})
  t.equal(config.port, 3000)
  t.equal(config.host, '127.0.0.1')
  t.equal(config.logLevel, 'info')
  t.equal(config.trustProxy, false)
  t.equal(config.allowedHosts, undefined, 'unset: decided from HOST')
  t.same(config.allowedOrigins, [])
  t.equal(config.shutdownDelayMs, 5_000)
  t.equal(config.shutdownGraceMs, 10_000)
  t.equal(config.monitoring.dsn, undefined)
  t.equal(config.uploadDir, tmpdir(), 'uploads wait in the system temp folder')
  t.equal(config.uploadMaxBytes, 10 * 1024 * 1024)
  t.equal(config.logBufferBytes, 16 * 1024 * 1024, 'at most 16 MiB of log lines wait for stdout')
  t.equal(config.openerPolicy, undefined, 'no Cross-Origin-Opener-Policy unless chosen')
  t.equal(config.compression, true, 'answers are compressed unless told otherwise')
  t.same(config.rateLimit, { forms: 30, monitoring: 300, windowMs: 60_000, redisUrl: undefined }, 'rate limits on, counted in memory')
  t.same(
    config.sessions,
    { store: { kind: 'cookie' }, idleTimeoutS: 14 * 24 * 3600, absoluteTimeoutS: 30 * 24 * 3600 },
    'sessions in a sealed cookie: 14 days unused, 30 days at most',
  )
})

t.test('SESSION_STORE=redis keeps sessions at REDIS_URL, and is refused without it, naming both', async (t) => {
  t.same(loadConfig({ SESSION_STORE: 'redis', REDIS_URL: 'redis://redis:6379' }).sessions.store, { kind: 'redis', url: 'redis://redis:6379' })
  t.same(loadConfig({ SESSION_STORE: 'memory' }).sessions.store, { kind: 'memory' })
  t.throws(() => loadConfig({ SESSION_STORE: 'redis' }), {
    variable: 'SESSION_STORE',
    message: 'SESSION_STORE is "redis", which keeps sessions at REDIS_URL: set REDIS_URL too',
  })
})

t.test('UPLOAD_DIR: an existing folder this process can write to; UPLOAD_MAX_BYTES: bytes', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'config-uploads-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  t.match(loadConfig({ UPLOAD_DIR: dir, UPLOAD_MAX_BYTES: '2097152' }), { uploadDir: dir, uploadMaxBytes: 2 * 1024 * 1024 })
})

t.test('LOG_BUFFER_BYTES: bytes', async (t) => {
  t.equal(loadConfig({ LOG_BUFFER_BYTES: '1048576' }).logBufferBytes, 1024 * 1024)
})

t.test('valid values are parsed into their types', async (t) => {
  const cases: Array<[Record<string, string>, object]> = [
    [{ PORT: '8080' }, { port: 8080 }],
    [{ PORT: '0' }, { port: 0 }],
    [{ HOST: '0.0.0.0' }, { host: '0.0.0.0' }],
    [{ LOG_LEVEL: 'warn' }, { logLevel: 'warn' }],
    [{ COMPRESSION: 'off' }, { compression: false }],
    [{ COMPRESSION: 'OFF' }, { compression: false }],
    [{ COMPRESSION: 'on' }, { compression: true }],
    [{ CROSS_ORIGIN_OPENER_POLICY: 'same-origin' }, { openerPolicy: 'same-origin' }],
    [{ CROSS_ORIGIN_OPENER_POLICY: 'same-origin-allow-popups' }, { openerPolicy: 'same-origin-allow-popups' }],
    [{ CROSS_ORIGIN_OPENER_POLICY: 'off' }, { openerPolicy: undefined }],
    [{ CROSS_ORIGIN_OPENER_POLICY: ' Same-Origin ' }, { openerPolicy: 'same-origin' }],
    [{ TRUST_PROXY: 'true' }, { trustProxy: true }],
    [{ RATE_LIMIT_FORMS: '5', RATE_LIMIT_MONITORING: '0', RATE_LIMIT_WINDOW_MS: '1000' }, { rateLimit: { forms: 5, monitoring: 0, windowMs: 1000 } }],
    [{ RATE_LIMIT_FORMS: 'off', RATE_LIMIT_MONITORING: 'off' }, { rateLimit: { forms: 0, monitoring: 0 } }],
    [{ REDIS_URL: 'redis://redis:6379' }, { rateLimit: { redisUrl: 'redis://redis:6379' } }],
    [{ REDIS_URL: 'rediss://:secret@redis.example.com:6380/1' }, { rateLimit: { redisUrl: 'rediss://:secret@redis.example.com:6380/1' } }],
    [{ TRUST_PROXY: 'false' }, { trustProxy: false }],
    [{ TRUST_PROXY: '2' }, { trustProxy: 2 }],
    [{ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }, { trustProxy: ['10.0.0.0/8', '127.0.0.1'] }],
    [{ TRUST_PROXY: '::1,fd00::/8' }, { trustProxy: ['::1', 'fd00::/8'] }],
    [{ TRUST_PROXY: 'loopback, uniquelocal' }, { trustProxy: ['loopback', 'uniquelocal'] }],
    [
      { ALLOWED_HOSTS: 'app.example.com, .example.org, localhost:3000, [::1], *' },
      {
        allowedHosts: [
          { kind: 'name', hostname: 'app.example.com', subdomains: false, port: undefined },
          { kind: 'name', hostname: 'example.org', subdomains: true, port: undefined },
          { kind: 'name', hostname: 'localhost', subdomains: false, port: '3000' },
          { kind: 'name', hostname: '[::1]', subdomains: false, port: undefined },
          { kind: 'any' },
        ],
      },
    ],
    [{ ALLOWED_ORIGINS: 'https://a.example, http://localhost:5173' }, { allowedOrigins: ['https://a.example', 'http://localhost:5173'] }],
    [{ ALLOWED_ORIGINS: 'https://a.example/' }, { allowedOrigins: ['https://a.example'] }],
    [
      { SHUTDOWN_DELAY_MS: '0', SHUTDOWN_GRACE_MS: '30000' },
      { shutdownDelayMs: 0, shutdownGraceMs: 30_000 },
    ],
    [{ SENTRY_TRACES_SAMPLE_RATE: '0.25' }, { monitoring: { tracesSampleRate: 0.25 } }],
    [{ SESSION_IDLE_TIMEOUT: '1800', SESSION_ABSOLUTE_TIMEOUT: '12h' }, { sessions: { idleTimeoutS: 1800, absoluteTimeoutS: 12 * 3600 } }],
    [{ SESSION_IDLE_TIMEOUT: '90s', SESSION_ABSOLUTE_TIMEOUT: '400d' }, { sessions: { idleTimeoutS: 90, absoluteTimeoutS: 400 * 24 * 3600 } }],
    [{ SESSION_IDLE_TIMEOUT: '30m' }, { sessions: { idleTimeoutS: 1800 } }],
    [{ SESSION_SECRET: 'n'.repeat(32), SESSION_SECRET_PREVIOUS: 'o'.repeat(40) }, { sessionSecrets: ['n'.repeat(32), 'o'.repeat(40)] }],
  ]
  for (const [env, expected] of cases) t.match(loadConfig(env), expected, JSON.stringify(env))
})

t.test('a bad value is refused with a message naming the variable', async (t) => {
  const cases: Array<[Record<string, string>, string]> = [
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '-1' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ PORT: '80.5' }, 'PORT'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ COMPRESSION: 'maybe' }, 'COMPRESSION'],
    [{ CROSS_ORIGIN_OPENER_POLICY: 'same-site' }, 'CROSS_ORIGIN_OPENER_POLICY'],
    [{ CROSS_ORIGIN_OPENER_POLICY: 'same-origin; report-to=x' }, 'CROSS_ORIGIN_OPENER_POLICY'],
    [{ TRUST_PROXY: 'yes' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '10.0.0.0/8,evil' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '999.1.1.1' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '10.0.0.0/99' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: ':::::' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '10.0.0.1,' }, 'TRUST_PROXY'],
    [{ ALLOWED_HOSTS: '' }, 'ALLOWED_HOSTS'],
    [{ ALLOWED_HOSTS: 'https://app.example.com' }, 'ALLOWED_HOSTS'],
    [{ ALLOWED_HOSTS: 'app.example.com/path' }, 'ALLOWED_HOSTS'],
    [{ ALLOWED_HOSTS: 'a b' }, 'ALLOWED_HOSTS'],
    [{ SESSION_SECRET: 'too-short' }, 'SESSION_SECRET'],
    [{ SESSION_SECRET: 'x'.repeat(32), SESSION_SECRET_PREVIOUS: 'short' }, 'SESSION_SECRET_PREVIOUS'],
    [{ SESSION_SECRET_PREVIOUS: 'x'.repeat(32) }, 'SESSION_SECRET_PREVIOUS'],
    [{ ALLOWED_ORIGINS: 'a.example' }, 'ALLOWED_ORIGINS'],
    [{ SHUTDOWN_DELAY_MS: '5s' }, 'SHUTDOWN_DELAY_MS'],
    [{ SHUTDOWN_GRACE_MS: '-1' }, 'SHUTDOWN_GRACE_MS'],
    [{ SENTRY_DSN: 'https://example.com' }, 'SENTRY_DSN'],
    [{ SENTRY_ALLOWED_DSNS: 'https://k@o1.ingest.sentry.io/1,nope' }, 'SENTRY_ALLOWED_DSNS'],
    [{ SENTRY_TRACES_SAMPLE_RATE: '2' }, 'SENTRY_TRACES_SAMPLE_RATE'],
    [{ SENTRY_TUNNEL_UPSTREAM: 'http://relay.example/path' }, 'SENTRY_TUNNEL_UPSTREAM'],
    [{ ALLOWED_ORIGINS: 'https://a.example/path' }, 'ALLOWED_ORIGINS'],
    [{ ALLOWED_ORIGINS: 'ftp://a.example' }, 'ALLOWED_ORIGINS'],
    [{ UPLOAD_DIR: 'relative/uploads' }, 'UPLOAD_DIR'],
    [{ UPLOAD_DIR: '/no/such/folder/here' }, 'UPLOAD_DIR'],
    [{ UPLOAD_DIR: '/etc/hostname' }, 'UPLOAD_DIR'],
    [{ UPLOAD_MAX_BYTES: '10MB' }, 'UPLOAD_MAX_BYTES'],
    [{ UPLOAD_MAX_BYTES: '0' }, 'UPLOAD_MAX_BYTES'],
    [{ LOG_BUFFER_BYTES: '16MiB' }, 'LOG_BUFFER_BYTES'],
    [{ LOG_BUFFER_BYTES: '-1' }, 'LOG_BUFFER_BYTES'],
    [{ RATE_LIMIT_FORMS: '-1' }, 'RATE_LIMIT_FORMS'],
    [{ RATE_LIMIT_FORMS: '30/min' }, 'RATE_LIMIT_FORMS'],
    [{ RATE_LIMIT_MONITORING: 'none' }, 'RATE_LIMIT_MONITORING'],
    [{ RATE_LIMIT_WINDOW_MS: '0' }, 'RATE_LIMIT_WINDOW_MS'],
    [{ RATE_LIMIT_WINDOW_MS: '1m' }, 'RATE_LIMIT_WINDOW_MS'],
    [{ REDIS_URL: 'http://redis:6379' }, 'REDIS_URL'],
    [{ REDIS_URL: 'redis:6379' }, 'REDIS_URL'],
    [{ SESSION_STORE: 'postgres' }, 'SESSION_STORE'],
    [{ SESSION_IDLE_TIMEOUT: '0' }, 'SESSION_IDLE_TIMEOUT'],
    [{ SESSION_IDLE_TIMEOUT: '2w' }, 'SESSION_IDLE_TIMEOUT'],
    [{ SESSION_IDLE_TIMEOUT: '1.5h' }, 'SESSION_IDLE_TIMEOUT'],
    [{ SESSION_ABSOLUTE_TIMEOUT: '401d' }, 'SESSION_ABSOLUTE_TIMEOUT'],
  ]
  for (const [env, variable] of cases) {
    t.throws(() => loadConfig(env), ConfigError, JSON.stringify(env))
    try {
      loadConfig(env)
    } catch (error) {
      t.equal((error as ConfigError).variable, variable)
      t.match((error as Error).message, new RegExp(`^${variable} `))
      t.notMatch((error as Error).message, '\n', 'one line')
    }
  }
})

t.test('a bad REDIS_URL is refused without repeating it: it may hold a password', async (t) => {
  t.throws(() => loadConfig({ REDIS_URL: 'http://:hunter2@redis:6379' }), {
    variable: 'REDIS_URL',
    message: /^REDIS_URL must be a Redis URL like redis:\/\//,
  })
  try {
    loadConfig({ REDIS_URL: 'http://:hunter2@redis:6379' })
  } catch (error) {
    t.notMatch((error as Error).message, 'hunter2')
  }
})

t.test("the product's variables are read with the framework's, typed, and may not take a framework variable's name", async (t) => {
  const pageSize = defineVariable({
    name: 'NOTES_PAGE_SIZE',
    meaning: 'notes per page',
    default: { literal: '20' },
    parse: (raw, name) => {
      if (!/^[1-9]\d{0,2}$/.test(raw)) throw new ConfigError(name, `must be a whole number from 1 to 999, got "${raw}"`)
      return Number(raw)
    },
  })
  const product = defineConfig([pageSize])
  t.same(loadConfig({}, product.variables).product, { NOTES_PAGE_SIZE: 20 }, 'the default, parsed')
  t.same(loadConfig({ NOTES_PAGE_SIZE: '50' }, product.variables).product, { NOTES_PAGE_SIZE: 50 })
  t.throws(() => loadConfig({ NOTES_PAGE_SIZE: 'many' }, product.variables), { name: 'ConfigError', variable: 'NOTES_PAGE_SIZE' })
  const read: number = product.of({ config: loadConfig({}, product.variables) } as never).NOTES_PAGE_SIZE
  t.equal(read, 20, 'read back typed from the instance')
  t.throws(() => loadConfig({}, [{ ...pageSize, name: 'PORT' }]), /declares the configuration variable PORT twice, or one the framework declares/)
  t.throws(() => loadConfig({}, [pageSize, pageSize]), /NOTES_PAGE_SIZE twice/)
})
