/**
 * What the server says about one page, in the HTML's bootstrap script and as the JSON
 * answer of the page-data endpoint (docs/architecture.md, "Page delivery"). The client renders from it alone, so
 * the first page and every navigated page take the same path through the code.
 */
import type { ActionState } from './actions.js'
import type { DeferredRef } from './deferred.js'
import type { RedirectStatus } from './errors.js'
import type { RenderMode } from './route-table.js'
import { DATA_PREFIX } from './constants.js'

interface PayloadBase {
  /** The build that answered; the client reloads fully when it differs from its own. */
  readonly buildId: string
}

/** The data of layouts, by layout id: only layouts that have a loader appear. */
export type LayoutData = Readonly<Record<string, unknown>>

/**
 * Where a screen sits among the layouts (docs/architecture.md, "Layouts"). The page data of a client
 * navigation leaves out the data of layouts the browser already holds fresh (it says
 * which in the LAYOUTS_HELD_HEADER); the browser puts its own copy back before the
 * payload is stored, so every stored payload is whole.
 */
interface InLayouts {
  readonly layouts?: LayoutData
  /**
   * The parts of its data and its layouts' that follow later in the same answer
   * (./deferred.ts); until then their values here are placeholders.
   */
  readonly deferred?: readonly DeferredRef[]
}

/**
 * A not-found or error screen of a route that matched: rendered inside the layouts
 * around it that did not fail, with the nearest not-found or error component declared.
 */
interface FailureInLayouts extends InLayouts {
  /** The route whose page (or one of whose layouts) failed; absent when no route matched. */
  readonly routeId?: string
  /** The layout whose loader failed: the screen goes inside its parent. Absent when the page's loader failed. */
  readonly failedLayout?: string
}

/** A route matched and its loader returned data. */
export interface PagePayload<Data = unknown> extends PayloadBase, InLayouts {
  readonly kind: 'page'
  /** 422: rendered again after a form submission the action refused (`action` says why). */
  readonly status: 200 | 422
  readonly routeId: string
  readonly mode: RenderMode
  readonly params: Readonly<Record<string, string>>
  readonly data: Data
  /** After a refused submission (no JavaScript): the errors and submitted values (never a secret field's). */
  readonly action?: ActionState
  /**
   * Its loaders changed what the browser holds (set or deleted a cookie, changed the
   * session: a flash message taken). Shown where it was asked for, never reused from
   * the browser's page cache: a later visit asks again, as it would without JavaScript.
   */
  readonly once?: true
}

/** No route matched, a param failed its check, or the loader threw `notFound()`. */
export interface NotFoundPayload extends PayloadBase, FailureInLayouts {
  readonly kind: 'not-found'
  readonly status: 404
}

/**
 * The loader failed. From 500 up only the digest is sent; below 500 the message of an
 * `HttpError` whose `expose` is true.
 */
export interface ErrorPayload extends PayloadBase, FailureInLayouts {
  readonly kind: 'error'
  readonly status: number
  readonly digest?: string
  readonly message?: string
  /** `npm run dev` only: the real error, for the browser's error overlay. Production never sends it. */
  readonly devError?: DevError
}

/** An error as the development overlay shows it. */
export interface DevError {
  readonly message: string
  readonly stack?: string
}

/** The loader threw `redirect()`. Only page data carries this; HTML answers with a 3xx. */
export interface RedirectPayload extends PayloadBase {
  readonly kind: 'redirect'
  readonly status: RedirectStatus
  readonly location: string
}

export type AnyPayload = PagePayload | NotFoundPayload | ErrorPayload | RedirectPayload

/** A payload that renders a screen (everything but a redirect). */
export type ScreenPayload = Exclude<AnyPayload, RedirectPayload>

/** The page-data URL of a page, from its location key (shared/framework/location.ts): `/items/7?x=1` -> `/_data/items/7?x=1`. */
export function dataUrl(pageKey: string): string {
  return DATA_PREFIX + pageKey
}

/** True when `value` has the shape of a payload (the client's check on JSON it fetched). */
export function isPayload(value: unknown): value is AnyPayload {
  if (typeof value !== 'object' || value === null) return false
  const { kind, buildId, status } = value as Record<string, unknown>
  return (
    typeof buildId === 'string' && typeof status === 'number' && (kind === 'page' || kind === 'not-found' || kind === 'error' || kind === 'redirect')
  )
}
