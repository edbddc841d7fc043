/**
 * The monitoring tunnel: envelopes through /monitoring to a local sink (ingest-sink.ts),
 * against posting to the sink directly.
 */
import { spawn } from 'node:child_process'
import { load, type Load } from './load.js'
import { originOf, projectRoot, startApp, stop } from './processes.js'

/**
 * Saturation (50 connections) gives the throughput; its latency is mostly queueing. The
 * latency the tunnel adds is measured at a steady moderate rate, after that warm-up.
 */
export const MODERATE_RATE = 300

/** Each path at saturation, then at MODERATE_RATE. */
export interface TunnelFigures {
  /** With @sentry/node loaded. */
  readonly tunnel: Load
  readonly tunnelModerate: Load
  /** The tunnel alone, without the server SDK. */
  readonly tunnelOnly: Load
  readonly tunnelOnlyModerate: Load
  /** Straight to the sink. */
  readonly direct: Load
  readonly directModerate: Load
}

/** One event envelope with 20 breadcrumbs, for `dsn`. */
function envelopeFor(dsn: string): string {
  return (
    JSON.stringify({ dsn, sent_at: new Date().toISOString() }) +
    '\n' +
    JSON.stringify({ type: 'event' }) +
    '\n' +
    JSON.stringify({
      event_id: 'a'.repeat(32),
      message: 'bench',
      level: 'error',
      breadcrumbs: Array.from({ length: 20 }, (_, i) => ({ message: `crumb ${i}` })),
    }) +
    '\n'
  )
}

export async function measureTunnel(): Promise<TunnelFigures> {
  const sink = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench/ingest-sink.ts'], {
    cwd: projectRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const sinkOrigin = await originOf(sink)
  const dsn = `http://publickey@${new URL(sinkOrigin).host}/1`
  // Once with @sentry/node loaded (SENTRY_DSN, as in production) and once with the tunnel
  // alone (SENTRY_ALLOWED_DSNS only: no server SDK), to show what the SDK costs.
  const tunnelAlone = await startApp({ SENTRY_ALLOWED_DSNS: dsn })
  const post = { body: envelopeFor(dsn), contentType: 'text/plain;charset=UTF-8' }
  const tunnelOnly = await load(`${tunnelAlone.origin}/monitoring?o=0&p=1`, 50, post)
  const tunnelOnlyModerate = await load(`${tunnelAlone.origin}/monitoring?o=0&p=1`, 1, post, MODERATE_RATE)
  await stop(tunnelAlone.child)
  const tunnelApp = await startApp({ SENTRY_DSN: dsn })
  const tunnel = await load(`${tunnelApp.origin}/monitoring?o=0&p=1`, 50, post)
  const tunnelModerate = await load(`${tunnelApp.origin}/monitoring?o=0&p=1`, 1, post, MODERATE_RATE)
  const direct = await load(`${sinkOrigin}/api/1/envelope/`, 50, post)
  const directModerate = await load(`${sinkOrigin}/api/1/envelope/`, 1, post, MODERATE_RATE)
  await stop(tunnelApp.child)
  sink.kill('SIGKILL')
  return { tunnel, tunnelModerate, tunnelOnly, tunnelOnlyModerate, direct, directModerate }
}
