/**
 * Renders one page into its HTML document, whole (the default) or streamed (routes
 * with `stream: true`), and returns the result: it never sends, so the page handlers
 * decides what goes out, the document or the 500 page.
 *
 * Whole: `renderToString`, about twice as fast for a page whose data the loader already
 * fetched (docs/decisions/008). Streamed: the result is ready once React's shell is;
 * the stream starts with the document head, then React's HTML as it comes, then the
 * document tail. A streamed render that runs longer than its timeout, or whose client
 * went away (`signal`), is aborted: pending Suspense boundaries fall back to rendering
 * in the browser, and a shell still pending is a failure.
 */
import type { InlineStyle } from './inline-style.js'
import { Transform, type Readable } from 'node:stream'
import { renderToPipeableStream, renderToString } from 'react-dom/server'
import { AppRoot } from '../../../client/framework/view/app-root.js'
import { FailedPartInPlace } from '../../../client/framework/view/await.js'
import { singlePageSource, type ReadyPage } from '../../../client/framework/view/page-source.js'
import type { BuildManifest } from '../../../shared/framework/build-manifest.js'
import type { LayoutSet } from '../../../client/framework/view/layout-tree.js'
import type { CanonicalLocation } from '../../../shared/framework/location.js'
import type { BrowserMonitoringConfig } from '../../../shared/framework/monitoring.js'
import { digestOf } from '../../../shared/framework/digest.js'
import type { DeferredOutcome } from '../../../shared/framework/deferred.js'
import { isDeferredFailure } from './deferred-parts.js'
import { partWriter } from './deferred-response.js'
import { DOCUMENT_TAIL, renderDocumentHead, startsAfterShell, startScriptTag } from './document.js'

/** Everything one render of one page depends on: built once per request by the page handlers. */
export interface PageRender {
  readonly manifest: BuildManifest
  /** The app's stylesheet, written into the document (else linked: development has none to write). */
  readonly inlineStyle?: InlineStyle
  readonly page: ReadyPage
  /** The page's canonical location: what wouter renders and the key the browser finds it under. */
  readonly location: CanonicalLocation
  /**
   * This response's CSP nonces; `style` is used in development only (Vite's `<style>`
   * tags). None for a static page, which is sent as it is to everyone.
   */
  readonly nonce: { readonly script: string; readonly style: string } | undefined
  readonly development: boolean
  /** The application's layouts around the page. */
  readonly layouts: LayoutSet
  /** The product's attributes for this visitor's `<html>` (the root layout's `documentAttributes`), as HTML. */
  readonly htmlAttributes?: string | undefined
  /** What the browser's error reporting needs; absent when monitoring is off. */
  readonly monitoring?: BrowserMonitoringConfig
  /**
   * The page's deferred parts: streamed (each written when it settles, the page's script
   * right after the shell), or settled already (a crawler's whole page: their scripts
   * go before the end).
   */
  readonly deferred?: { readonly streamed: true } | { readonly streamed: false; readonly scripts: string }
}

export type RenderResult<Body> = { readonly ok: true; readonly body: Body } | { readonly ok: false; readonly error: unknown }

export interface StreamOptions {
  /** A render still running after this long is aborted. */
  readonly timeoutMs: number
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal
  /**
   * An error inside a Suspense boundary: the page still streams, the browser renders
   * that part itself, and `digest` (sent with it) finds the report. Not called for the
   * error that fails the shell: that one is the result.
   */
  readonly onRecoverableError: (error: unknown, digest: string) => void
  /**
   * The outcomes of the page's deferred parts: each goes into the stream as a script
   * when it settles, between React's writes, and any not yet written before the end.
   */
  readonly deferred?: ReadonlyArray<Promise<DeferredOutcome>>
}

function appElement({ page, location, layouts }: PageRender) {
  return <AppRoot source={singlePageSource(location.pageKey, page)} layouts={layouts} ssrPath={location.pathname} ssrSearch={location.search} />
}

/** The whole document as one string. */
export function renderWhole(render: PageRender): RenderResult<string> {
  try {
    const parts = render.deferred?.streamed === false ? render.deferred.scripts : ''
    return { ok: true, body: renderDocumentHead(render) + renderToString(appElement(render)) + parts + DOCUMENT_TAIL }
  } catch (error) {
    return { ok: false, error }
  }
}

/** The document as a stream, once React's shell has rendered. */
export function renderStream(render: PageRender, options: StreamOptions): Promise<RenderResult<Readable>> {
  // Before React starts: a title() or head() that throws is a failed render, as in
  // renderWhole (thrown from onShellReady, it left the answer hanging).
  let head: string
  try {
    head = renderDocumentHead(render)
  } catch (error) {
    return Promise.resolve({ ok: false, error })
  }
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined
    // A client that leaves is no server error: its abort gets no digest and no report.
    const clientGone = new Error('Client closed the connection')
    // A timeout aborts every pending boundary with this one reason: one digest, one report.
    const timedOut = new Error(`Render did not finish within ${options.timeoutMs} ms`)
    let timedOutDigest: string | undefined
    // React reports the error that fails the shell to onError too, before
    // onShellError: errors are held until the shell's fate is known.
    let early: Array<{ error: unknown; digest: string }> | undefined = []
    const reportEarly = (except?: unknown) => {
      for (const { error, digest } of early ?? []) if (error !== except) options.onRecoverableError(error, digest)
      early = undefined
    }
    // A part that fails is left to the browser (`$RX`), which shows its error once the outcome arrives.
    const app = <FailedPartInPlace value={false}>{appElement(render)}</FailedPartInPlace>
    const { pipe, abort } = renderToPipeableStream(app, {
      ...(render.nonce ? { nonce: render.nonce.script } : {}),
      onShellReady() {
        // The head first, then React's HTML as it comes, the deferred parts as they
        // settle, and the tail once React and every part are done.
        const parts = partWriter(options.deferred ?? [], render.nonce?.script, startsAfterShell(render) ? startScriptTag(render) : '')
        const body = new Transform({
          transform: (chunk, _encoding, done) => done(null, chunk),
          flush: (done) => void parts.rest().then((scripts) => done(null, scripts + DOCUMENT_TAIL), done),
        })
        body.push(head)
        body.on('close', () => clearTimeout(timer))
        pipe(body)
        parts.start(body)
        reportEarly()
        resolve({ ok: true, body })
      },
      onShellError(error) {
        clearTimeout(timer)
        reportEarly(error)
        resolve({ ok: false, error })
      },
      onError(error) {
        // A deferred part's failure was reported when it failed: its boundary only passes the digest on.
        if (isDeferredFailure(error)) return error.digest
        if (error === clientGone) return undefined
        if (error === timedOut && timedOutDigest !== undefined) return timedOutDigest
        const digest = digestOf(error)
        if (error === timedOut) timedOutDigest = digest
        if (early) early.push({ error, digest })
        else options.onRecoverableError(error, digest)
        return digest
      },
    })
    // The parts' deadline started before the loaders, so they have settled by now; React
    // retries their boundaries in a setImmediate queued when they failed. Aborting after
    // it keeps a part that timed out one failure, not a second one as a pending boundary.
    const abortLate = () => void Promise.all(options.deferred ?? []).then(() => setImmediate(() => abort(timedOut)))
    timer = setTimeout(abortLate, options.timeoutMs)
    options.signal.addEventListener('abort', () => abort(clientGone), { once: true })
  })
}
