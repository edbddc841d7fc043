/**
 * Renders one page into its HTML document, whole or streamed (`stream: true`). It never
 * sends, so the page handlers decide what goes out, the document or the 500 page.
 * Whole is `renderToString`, about twice as fast when the loader already has the data
 * (docs/decisions/008). A streamed render past its timeout or whose client left is
 * aborted: pending Suspense boundaries render in the browser; a pending shell fails.
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

/** Everything one render of one page depends on. */
export interface PageRender {
  readonly manifest: BuildManifest
  /** Absent in development: the stylesheets are linked. */
  readonly inlineStyle?: InlineStyle
  readonly page: ReadyPage
  readonly location: CanonicalLocation
  /** `style` only in development (Vite's `<style>` tags). None for a static page, the same bytes for everyone. */
  readonly nonce: { readonly script: string; readonly style: string } | undefined
  readonly development: boolean
  readonly layouts: LayoutSet
  /** The root layout's `documentAttributes`, as HTML. */
  readonly htmlAttributes?: string | undefined
  readonly monitoring?: BrowserMonitoringConfig
  /** Streamed (each part written as it settles), or settled already (a crawler's whole page). */
  readonly deferred?: { readonly streamed: true } | { readonly streamed: false; readonly scripts: string }
}

export type RenderResult<Body> = { readonly ok: true; readonly body: Body } | { readonly ok: false; readonly error: unknown }

export interface StreamOptions {
  readonly timeoutMs: number
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal
  /** An error inside a Suspense boundary (the browser renders that part); not the one that fails the shell. */
  readonly onRecoverableError: (error: unknown, digest: string) => void
  readonly deferred?: ReadonlyArray<Promise<DeferredOutcome>>
}

function appElement({ page, location, layouts }: PageRender) {
  return <AppRoot source={singlePageSource(location.pageKey, page)} layouts={layouts} ssrPath={location.pathname} ssrSearch={location.search} />
}

export function renderWhole(render: PageRender): RenderResult<string> {
  try {
    const parts = render.deferred?.streamed === false ? render.deferred.scripts : ''
    return { ok: true, body: renderDocumentHead(render) + renderToString(appElement(render)) + parts + DOCUMENT_TAIL }
  } catch (error) {
    return { ok: false, error }
  }
}

/** Resolves once React's shell has rendered. */
export function renderStream(render: PageRender, options: StreamOptions): Promise<RenderResult<Readable>> {
  // Before React starts: a title() or head() throwing from onShellReady left the response hanging.
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
        // Reported when it failed: its boundary only passes the digest on.
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
