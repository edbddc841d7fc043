/**
 * What the server says about one page, in the HTML or as page data (docs/architecture.md,
 * "Page requests"): the client renders from it alone, so the first page and every
 * navigated page take the same path.
 */
import type { ActionState } from './actions.js'
import type { DeferredRef } from './deferred.js'
import type { RedirectStatus } from './errors.js'
import type { RenderMode } from './route-table.js'
import { DATA_PREFIX } from './constants.js'

interface PayloadBase {
  /** The client reloads fully when it differs from its own. */
  readonly buildId: string
}

/** Only layouts that have a loader appear. */
export type LayoutData = Readonly<Record<string, unknown>>

/** Page data leaves out the layouts the browser has cached fresh (CACHED_LAYOUTS_HEADER); the browser puts them back before storing. */
interface InLayouts {
  readonly layouts?: LayoutData
  /** Parts that follow later in the same answer (./deferred.ts); until then their values here are placeholders. */
  readonly deferred?: readonly DeferredRef[]
  /** A dynamic page's: who it was rendered for (./identity.ts), which its forms send back. */
  readonly identity?: string
}

interface FailureInLayouts extends InLayouts {
  /** Absent when no route matched. */
  readonly routeId?: string
  /** The error page goes inside its parent. Absent when the page's loader failed. */
  readonly failedLayout?: string
}

export interface PagePayload<Data = unknown> extends PayloadBase, InLayouts {
  readonly kind: 'page'
  /** 422: a refused submission rendered again (`action` says why). */
  readonly status: 200 | 422
  readonly routeId: string
  readonly mode: RenderMode
  readonly params: Readonly<Record<string, string>>
  readonly data: Data
  /** After a refused submission without JavaScript; never a secret field's value. */
  readonly action?: ActionState
  /** Its loaders changed what the browser holds (a cookie, a flash message taken): never reused from the page cache. */
  readonly once?: true
}

export interface NotFoundPayload extends PayloadBase, FailureInLayouts {
  readonly kind: 'not-found'
  readonly status: 404
}

/** From 500 up only the digest is sent; below 500 the message of an `HttpError` whose `expose` is true. */
export interface ErrorPayload extends PayloadBase, FailureInLayouts {
  readonly kind: 'error'
  readonly status: number
  readonly digest?: string
  readonly message?: string
  /** `npm run dev` only; production never sends it. */
  readonly devError?: DevError
}

export interface DevError {
  readonly message: string
  readonly stack?: string
}

/** Only page data carries this; HTML answers with a 3xx. */
export interface RedirectPayload extends PayloadBase {
  readonly kind: 'redirect'
  readonly status: RedirectStatus
  readonly location: string
}

export type AnyPayload = PagePayload | NotFoundPayload | ErrorPayload | RedirectPayload

/** What a request renders: its page, its not-found page or its error page. */
export type RenderPayload = Exclude<AnyPayload, RedirectPayload>

/** `/items/7?x=1` -> `/_data/items/7?x=1`. */
export function dataUrl(pageKey: string): string {
  return DATA_PREFIX + pageKey
}

/** The client's check on JSON it fetched. */
export function isPayload(value: unknown): value is AnyPayload {
  if (typeof value !== 'object' || value === null) return false
  const { kind, buildId, status } = value as Record<string, unknown>
  return (
    typeof buildId === 'string' && typeof status === 'number' && (kind === 'page' || kind === 'not-found' || kind === 'error' || kind === 'redirect')
  )
}
