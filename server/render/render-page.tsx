/**
 * Renders one page into the document, whole (the default) or streamed (routes with
 * `stream: true`). Whole: `renderToString`, about twice as fast for a page whose data
 * the loader already fetched (docs/decisions/008). Streamed: the document head goes
 * out as soon as React's shell is ready, then React's HTML, then the document tail. The status is already decided (the
 * loader ran before this), except that a shell that fails to render becomes the 500
 * page. A render that runs longer than its timeout is aborted (pending Suspense
 * boundaries fall back to rendering in the browser; a shell still pending becomes the
 * 500 page), and so is one whose client went away.
 */
import { Transform } from 'node:stream'
import type { FastifyReply } from 'fastify'
import { renderToPipeableStream, renderToString } from 'react-dom/server'
import { AppRoot } from '../../client/components/app-root.js'
import { SERVER_ERROR_TEXT } from '../../shared/error-texts.js'
import { singlePageSource, type ReadyPage } from '../../client/runtime/page-source.js'
import { titleOf } from '../../client/runtime/page-title.js'
import type { BuildManifest } from '../../shared/build-manifest.js'
import type { CanonicalLocation } from '../../shared/location.js'
import type { BrowserMonitoringConfig } from '../../shared/monitoring.js'
import { digestOf } from '../../shared/digest.js'
import { reportServerError } from '../monitoring/error-reporter.js'
import { DOCUMENT_TAIL, renderDocumentHead, renderShellErrorDocument } from './document.js'
import { devErrorOf } from './resolve-page.js'
import { NO_STORE } from '../http-errors.js'

export interface StreamPageOptions {
  readonly manifest: BuildManifest
  readonly page: ReadyPage
  /** The page's canonical location: what wouter renders and the key the browser finds it under. */
  readonly location: CanonicalLocation
  readonly nonce: string
  /** Headers that depend on the page (cache policy), set only if the shell renders. */
  readonly headers: Readonly<Record<string, string>>
  /** A render still running after this long is aborted. */
  readonly timeoutMs: number
  readonly monitoring?: BrowserMonitoringConfig
  /**
   * `npm run dev` only: the nonce of the `<style>` tags Vite inserts; a failed render's
   * 500 page then opens the error overlay with the real error.
   */
  readonly development?: { readonly styleNonce: string }
}

/** The document head of a page, with everything the browser needs before React's HTML. */
function headOf(options: StreamPageOptions): string {
  const { payload } = options.page
  return renderDocumentHead(options.manifest, {
    title: titleOf(options.page),
    nonce: options.nonce,
    ...(options.development ? { styleNonce: options.development.styleNonce } : {}),
    payload,
    routeId: payload.kind === 'page' ? payload.routeId : undefined,
    ...(options.monitoring ? { monitoring: options.monitoring } : {}),
  })
}

function sendShellError(reply: FastifyReply, options: StreamPageOptions, error: unknown): void {
  const overlay = options.development
    ? { error: devErrorOf(error), nonce: options.nonce, styleNonce: options.development.styleNonce }
    : undefined
  reply
    .code(500)
    .header('cache-control', NO_STORE)
    .type('text/html; charset=utf-8')
    .send(renderShellErrorDocument(SERVER_ERROR_TEXT, digestOf(error), overlay))
}

function appElement({ page, location }: StreamPageOptions) {
  return <AppRoot source={singlePageSource(location.key, page)} ssrPath={location.pathname} ssrSearch={location.search} />
}

/**
 * Renders the page whole; undefined when rendering failed, after the failure was
 * reported and the 500 page sent.
 */
export function renderDocument(reply: FastifyReply, options: StreamPageOptions): string | undefined {
  const { payload } = options.page
  try {
    return headOf(options) + renderToString(appElement(options)) + DOCUMENT_TAIL
  } catch (error) {
    reportServerError(reply.request, error, 'render failed', {
      digest: digestOf(error),
      ...(payload.kind === 'page' ? { routeId: payload.routeId } : {}),
    })
    sendShellError(reply, options, error)
    return undefined
  }
}

/** Renders the page whole and sends it in one write. */
export function sendRenderedPage(reply: FastifyReply, options: StreamPageOptions): void {
  const document = renderDocument(reply, options)
  if (document === undefined) return
  reply.code(options.page.payload.status).headers(options.headers).type('text/html; charset=utf-8').send(document)
}

export function streamPage(reply: FastifyReply, options: StreamPageOptions): Promise<void> {
  const { nonce } = options
  const { payload } = options.page

  return new Promise<void>((resolve) => {
    let timer: NodeJS.Timeout | undefined
    const { pipe, abort } = renderToPipeableStream(
      appElement(options),
      {
        nonce,
        onShellReady() {
          const body = new Transform({
            transform: (chunk, _encoding, done) => done(null, chunk),
            flush: (done) => done(null, DOCUMENT_TAIL),
          })
          body.push(headOf(options))
          body.on('close', () => clearTimeout(timer))
          reply.code(payload.status).headers(options.headers).type('text/html; charset=utf-8')
          reply.send(body)
          pipe(body)
          resolve()
        },
        onShellError(error) {
          clearTimeout(timer)
          sendShellError(reply, options, error)
          resolve()
        },
        onError(error) {
          const digest = digestOf(error)
          reportServerError(reply.request, error, 'render failed', {
            digest,
            ...(payload.kind === 'page' ? { routeId: payload.routeId } : {}),
          })
          return digest
        },
      },
    )
    timer = setTimeout(() => abort(new Error(`Render did not finish within ${options.timeoutMs} ms`)), options.timeoutMs)
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) abort(new Error('Client closed the connection'))
    })
  })
}
