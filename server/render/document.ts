/**
 * The HTML document around React's output. Everything that varies per response is
 * escaped here: the title as text, the page payload through the script-safe serializer,
 * the nonce as an attribute. React streams into `<div id="root">`.
 */
import { BOOTSTRAP_ELEMENT_ID, MONITORING_ELEMENT_ID, ROOT_ELEMENT_ID } from '../../shared/constants.js'
import type { BrowserMonitoringConfig } from '../../shared/monitoring.js'
import type { BuildManifest } from '../../shared/build-manifest.js'
import { escapeHtml, serializeForScript } from '../../shared/html.js'
import type { ScreenPayload } from '../../shared/page-payload.js'

export interface DocumentHead {
  readonly title: string
  readonly nonce: string
  readonly payload: ScreenPayload
  /** The route whose chunk to preload; none for the not-found and error pages. */
  readonly routeId?: string
  /** What the browser's error reporting needs; absent when monitoring is off. */
  readonly monitoring?: BrowserMonitoringConfig
}

/** The preload list of a route: entry, route chunk, and their static imports, once each. */
export function preloadsFor(manifest: BuildManifest, routeId: string | undefined): string[] {
  const route = routeId ? manifest.routes[routeId] : undefined
  const files = [manifest.entry.file, ...manifest.entry.imports]
  if (route) files.push(route.file, ...route.imports)
  return [...new Set(files)]
}

export function renderDocumentHead(manifest: BuildManifest, head: DocumentHead): string {
  const nonce = escapeHtml(head.nonce)
  const preloads = preloadsFor(manifest, head.routeId)
    .map((file) => `<link rel="modulepreload" href="${escapeHtml(file)}" nonce="${nonce}">`)
    .join('')
  const styles = manifest.css.map((file) => `<link rel="stylesheet" href="${escapeHtml(file)}">`).join('')
  return (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escapeHtml(head.title)}</title>` +
    // An empty icon: no /favicon.ico request, so no 404 in the console.
    '<link rel="icon" href="data:,">' +
    styles +
    preloads +
    `<script type="application/json" id="${BOOTSTRAP_ELEMENT_ID}" nonce="${nonce}">${serializeForScript(head.payload)}</script>` +
    (head.monitoring
      ? `<script type="application/json" id="${MONITORING_ELEMENT_ID}" nonce="${nonce}">${serializeForScript(head.monitoring)}</script>`
      : '') +
    `<script type="module" src="${escapeHtml(manifest.entry.file)}" nonce="${nonce}"></script>` +
    `</head><body><div id="${ROOT_ELEMENT_ID}">`
  )
}

export const DOCUMENT_TAIL = '</div></body></html>'

/**
 * The page sent when React cannot even render its shell: plain HTML, no script, the
 * same words and digest as the React error page.
 */
export function renderShellErrorDocument(text: string, digest: string): string {
  return (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<title>Application error</title><link rel="icon" href="data:,"></head><body><main>' +
    `<h1>${escapeHtml(text)}</h1><p>Digest: ${escapeHtml(digest)}</p>` +
    '</main></body></html>'
  )
}
