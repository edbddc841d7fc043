/**
 * The two documents an error is sent as when no React page can be: the shell error page
 * (React could not render at all) and a client error's page. Plain strings, so the error
 * modules never load React (docs/architecture.md, "Errors").
 */
import { STATUS_CODES } from 'node:http'
import { MAIN_ELEMENT_ID } from '../../shared/framework/constants.js'
import { escapeHtml, serializeForScript } from '../../shared/framework/html.js'
import type { DevError } from '../../shared/framework/page-payload.js'

/**
 * What `npm run dev` tells the browser when a file the server renders pages with changed
 * (vite.config.ts sends it): a development error page reloads, which shows the fix
 * without the developer reloading, or the next error.
 */
export const SOURCE_CHANGED_EVENT = 'app:source-changed'

/**
 * The page sent when React cannot even render its shell: plain HTML, the same words and
 * digest as the React error page, and no script, except in development, where Vite's
 * error overlay opens with the real error, and the page reloads after the next edit.
 */
export function renderShellErrorDocument(
  text: string,
  digest: string,
  overlay?: { readonly error: DevError; readonly nonce: string; readonly styleNonce: string },
): string {
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
        `createHotContext('/@error-page').on('${SOURCE_CHANGED_EVENT}', () => location.reload())</script>`
      : '') +
    '</body></html>'
  )
}

/**
 * The page of a client error (a malformed URL, a Host this server does not answer): the
 * status and a message written by the server, never one quoting the request, in the
 * app's stylesheet; no script, so it needs no nonce and hydrates nothing.
 */
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
