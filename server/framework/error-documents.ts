/** Error documents for when no React page can be: plain strings, so the error modules never load React. */
import { STATUS_CODES } from 'node:http'
import { MAIN_ELEMENT_ID } from '../../shared/framework/constants.js'
import { escapeHtml, serializeForScript } from '../../shared/framework/html.js'
import type { DevError } from '../../shared/framework/page-payload.js'

/** Sent by vite.config.ts when a server file changes: a development error page reloads to show the fix. */
export const SOURCE_CHANGED_EVENT = 'app:source-changed'

/**
 * When React cannot even render its shell; no script but Vite's overlay in development.
 * There the page reloads on the next edit of client/; an edit saved before its
 * connection to Vite opened sent that event to no one, so once connected the page asks
 * for itself again and reloads unless the answer shows the same failure (its digest).
 */
export function renderShellErrorDocument(
  text: string,
  digest: string,
  overlay?: { readonly error: DevError; readonly nonce: string; readonly styleNonce: string },
): string {
  const digestLine = `<p>Digest: ${escapeHtml(digest)}</p>`
  return (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<title>Application error</title><link rel="icon" href="data:,"></head><body><main>' +
    `<h1>${escapeHtml(text)}</h1>${digestLine}` +
    '</main>' +
    (overlay
      ? `<meta property="csp-nonce" nonce="${escapeHtml(overlay.styleNonce)}">` +
        `<script type="module" nonce="${escapeHtml(overlay.nonce)}">` +
        `import { ErrorOverlay, createHotContext } from '/@vite/client';` +
        `document.body.append(new ErrorOverlay(${serializeForScript(overlay.error)}));` +
        `const hot = createHotContext('/@error-page');` +
        `hot.on('${SOURCE_CHANGED_EVENT}', () => location.reload());` +
        `hot.on('vite:ws:connect', async () => {` +
        `  try { if (!(await (await fetch(location.href, { cache: 'no-store' })).text()).includes(${serializeForScript(digestLine)})) location.reload() } catch {}` +
        `})</script>`
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
