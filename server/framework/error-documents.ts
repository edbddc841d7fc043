/** Error documents for when no React page can be: plain strings, so the error modules never load React. */
import { STATUS_CODES } from 'node:http'
import type { FastifyReply } from 'fastify'
import { MAIN_ELEMENT_ID } from '../../shared/framework/constants.js'
import { escapeHtml, serializeForScript } from '../../shared/framework/html.js'
import type { DevError } from '../../shared/framework/page-payload.js'

/** Sent by vite.config.ts when a server file changes: a development error page reloads to show the fix. */
export const SOURCE_CHANGED_EVENT = 'app:source-changed'
/** Asked by a development error page once connected to Vite; vite.config.ts answers with `LAST_EDIT_EVENT`. */
export const LAST_EDIT_REQUEST = 'app:last-edit-request'
/** When client/ was last edited (`{ at }`, ms since the epoch; 0 for never). */
export const LAST_EDIT_EVENT = 'app:last-edit'

/** Vite's overlay on a development error page. */
export interface DevOverlay {
  readonly error: DevError
  readonly nonce: string
  readonly styleNonce: string
  /** When the request began (ms since the epoch): an edit since may have fixed it. */
  readonly requestedAt: number
}

/** The overlay for `error` on the development error page answering `reply`. */
export function devOverlayFor(reply: Pick<FastifyReply, 'cspNonce' | 'elapsedTime'>, error: DevError): DevOverlay {
  return { error, nonce: reply.cspNonce.script, styleNonce: reply.cspNonce.style, requestedAt: Date.now() - reply.elapsedTime }
}

/**
 * When React cannot even render its shell; no script but Vite's overlay in development.
 * There the page reloads on the next edit of client/. An edit saved before the page had
 * connected to Vite sent that event to no one, so once connected the page asks when the
 * last edit was, and reloads if it came after its request began.
 */
export function renderShellErrorDocument(text: string, digest: string, overlay?: DevOverlay): string {
  return (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<title>Application error</title><link rel="icon" href="data:,"></head><body><main>' +
    `<h1>${escapeHtml(text)}</h1><p>Digest: ${escapeHtml(digest)}</p>` +
    '</main>' +
    (overlay
      ? `<meta property="csp-nonce" nonce="${escapeHtml(overlay.styleNonce)}">` +
        `<script type="module" nonce="${escapeHtml(overlay.nonce)}">` +
        `import { ErrorOverlay, createHotContext } from '/@vite/client';` +
        `document.body.append(new ErrorOverlay(${serializeForScript(overlay.error)}));` +
        `const hot = createHotContext('/@error-page');` +
        `hot.on('${SOURCE_CHANGED_EVENT}', () => location.reload());` +
        `hot.on('${LAST_EDIT_EVENT}', ({ at }) => {` +
        `  if (at < ${overlay.requestedAt}) return;` +
        `  console.info('[app] client/ was edited before this page connected: reloading');` +
        `  location.reload()` +
        `});` +
        `hot.on('vite:ws:connect', () => hot.send('${LAST_EDIT_REQUEST}'))</script>`
      : '') +
    '</body></html>'
  )
}

/** The message is the server's, never quoting the request; no script, so it needs no nonce. */
export function renderClientErrorDocument(status: number, message: string, stylesheets: readonly string[]): string {
  return (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${status}: ${escapeHtml(STATUS_CODES[status] ?? 'Error')}</title><link rel="icon" href="data:,">` +
    stylesheets.map((file) => `<link rel="stylesheet" href="${escapeHtml(file)}">`).join('') +
    `</head><body><main id="${MAIN_ELEMENT_ID}"><section class="status-page">` +
    `<h1>${status}</h1><p>${escapeHtml(message)}</p><p><a href="/">Go to the home page</a></p>` +
    '</section></main></body></html>'
  )
}
