/**
 * What a failure becomes, decided in one place (docs/architecture.md, "Errors and
 * refusals"). Below 500 it is a refusal, in our words (`refusalOf`), and nothing is
 * reported. From 500 up it is a fault: one digest, one error log line and one report to
 * monitoring, the three always agreeing. Every error handler, loader and render failure
 * comes through here; the surfaces (./surfaces.ts, the error screens of pages and page
 * data, the form posts' answers) only render what it decided.
 */
import type { FastifyRequest } from 'fastify'
import { digestOf } from '../../shared/framework/digest.js'
import { RefusalError, refusalOf, statusOf, type Refusal } from './http-errors.js'
import { reportServerError, type FailureContext } from './monitoring/error-reporter.js'

/** A failure from 500 up, as the client sees it: its status and the digest that finds its log line. */
export interface Fault {
  readonly status: number
  readonly digest: string
}

export type Failure = { readonly refusal: Refusal; readonly fault?: undefined } | { readonly fault: Fault; readonly refusal?: undefined }

/** Where the failure happened, for the log line and the report. */
export type FailureSource = Omit<FailureContext, 'digest'>

/**
 * A refusal below 500; a fault (logged with `message` and reported, once) from 500 up.
 * A `RefusalError` is a refusal whatever its status: the 503 of sessions whose store does
 * not answer is said by that store's own warning, not as one fault per request.
 * `message` says what failed (`'api request failed'`): the log line's text.
 */
export function failureOf(request: FastifyRequest, error: unknown, message: string, source: FailureSource = {}): Failure {
  if (error instanceof RefusalError || statusOfAny(error) < 500) return { refusal: refusalOf(error as Parameters<typeof refusalOf>[0]) }
  return { fault: faultOf(request, error, message, source) }
}

/** An error known to be a fault: its digest, logged and reported once. */
export function faultOf(request: FastifyRequest, error: unknown, message: string, source: FailureSource = {}): Fault {
  const digest = digestOf(error)
  reportFault(request, error, message, digest, source)
  const status = statusOfAny(error)
  return { status: status >= 500 ? status : 500, digest }
}

/** `statusOf` for whatever was thrown (a string, null): 500 for what is no error object. */
function statusOfAny(error: unknown): number {
  return typeof error === 'object' && error !== null ? statusOf(error) : 500
}

/**
 * Logs and reports a fault whose digest was made already: React's `onError` must hand
 * its digest to the page it is rendering before the failure can be reported.
 */
export function reportFault(request: FastifyRequest, error: unknown, message: string, digest: string, source: FailureSource = {}): void {
  reportServerError(request, error, message, { ...source, digest })
}
