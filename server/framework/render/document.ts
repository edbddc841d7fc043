/** The HTML document around React's output; everything that varies per response is escaped here. */
import { BOOTSTRAP_ELEMENT_ID, MONITORING_ELEMENT_ID, ROOT_ELEMENT_ID } from '../../../shared/framework/constants.js'
import type { BuildManifest } from '../../../shared/framework/build-manifest.js'
import { escapeHtml, escapeJsonForScript, serializeForScript } from '../../../shared/framework/html.js'
import { pageAnswer, toBrowserJson } from '../server-only.js'
import { headTagsOf, titleOf } from '../../../client/framework/view/page-head.js'
import { HEAD_MARKER } from '../../../shared/framework/head.js'
import type { PageRender } from './render-page.js'

/** Entry, route chunk, and their static imports, once each. */
export function preloadsFor(manifest: BuildManifest, routeId: string | undefined): string[] {
  const route = routeId ? manifest.routes[routeId] : undefined
  const files = [manifest.entry.file, ...manifest.entry.imports]
  if (route) files.push(route.file, ...route.imports)
  return [...new Set(files)]
}

/**
 * A production route chunk imports the entry, so the page's chunk is the script: entry and
 * page run in one task, without the extra task a dynamic import would wait. In
 * development (pages are not chunks) or without a page, the entry.
 */
export function startScriptFor(manifest: BuildManifest, routeId: string | undefined): string {
  const route = routeId ? manifest.routes[routeId] : undefined
  return route?.imports.includes(manifest.entry.file) ? route.file : manifest.entry.file
}

/** Up to where the product's `<html>` attributes go (static-pages.ts puts them into cached pages). */
export const DOCUMENT_START = '<!DOCTYPE html><html lang="en"'

const ATTRIBUTE_NAME = /^(?!lang$)[a-z][a-z0-9-]*$/

/** The root layout's `documentAttributes` as HTML (` data-theme="dark"`); a name other than lower-case or `lang` throws. */
export function htmlAttributes(attributes: Readonly<Record<string, string>> | undefined): string {
  let html = ''
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (!ATTRIBUTE_NAME.test(name)) throw new Error(`documentAttributes: "${name}" cannot go on <html> (a lower-case name other than lang)`)
    html += ` ${name}="${escapeHtml(value)}"`
  }
  return html
}

export function renderDocumentHead(render: PageRender): string {
  const { manifest, page } = render
  const { payload } = page
  // A static page (the same bytes for everyone) has no nonce and needs none: no inline script.
  const nonceAttribute = render.nonce ? ` nonce="${escapeHtml(render.nonce.script)}"` : ''
  const routeId = payload.kind === 'page' ? payload.routeId : undefined
  const preloads = preloadsFor(manifest, routeId)
    .map((file) => `<link rel="modulepreload" href="${escapeHtml(file)}"${nonceAttribute}>`)
    .join('')
  const styles = render.inlineStyle
    ? `<style>${render.inlineStyle.text}</style>`
    : manifest.css.map((file) => `<link rel="stylesheet" href="${escapeHtml(file)}">`).join('')
  return (
    DOCUMENT_START +
    (render.htmlAttributes ?? '') +
    '><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escapeHtml(titleOf(page))}</title>` +
    headTagsOf(page, render.layouts)
      .map(
        ({ tag, attributes }) =>
          `<${tag}${Object.entries(attributes)
            .map(([name, value]) => ` ${name}="${escapeHtml(value)}"`)
            .join('')} ${HEAD_MARKER}>`,
      )
      .join('') +
    // An empty icon: no /favicon.ico request, so no 404 in the console.
    '<link rel="icon" href="data:,">' +
    styles +
    (manifest.devScripts && render.development && render.nonce
      ? developmentScripts(manifest.devScripts, escapeHtml(render.nonce.script), escapeHtml(render.nonce.style))
      : '') +
    preloads +
    `<script type="application/json" id="${BOOTSTRAP_ELEMENT_ID}"${nonceAttribute}>${escapeJsonForScript(toBrowserJson(payload, pageAnswer(payload)))}</script>` +
    (render.monitoring
      ? `<script type="application/json" id="${MONITORING_ELEMENT_ID}"${nonceAttribute}>${serializeForScript(render.monitoring)}</script>`
      : '') +
    (startsAfterShell(render) ? '' : startScriptTag(render)) +
    `</head><body><div id="${ROOT_ELEMENT_ID}">`
  )
}

/**
 * With deferred parts the script goes right after React's shell, `async`, to hydrate while
 * the parts are on their way (in the head it would wait for the last one). Not in
 * development: React Refresh's preamble in the head must run first.
 */
export function startsAfterShell(render: PageRender): boolean {
  return render.deferred?.streamed === true && !render.development
}

export function startScriptTag(render: PageRender): string {
  const { manifest, page } = render
  const routeId = page.payload.kind === 'page' ? page.payload.routeId : undefined
  const nonceAttribute = render.nonce ? ` nonce="${escapeHtml(render.nonce.script)}"` : ''
  const async = startsAfterShell(render) ? ' async' : ''
  return `<script type="module"${async} src="${escapeHtml(startScriptFor(manifest, routeId))}"${nonceAttribute}></script>`
}

export const DOCUMENT_TAIL = '</div></body></html>'

/** Vite's client and React Refresh's preamble; the meta tag gives Vite the nonce for the `<style>` tags it inserts. */
function developmentScripts(scripts: readonly string[], nonce: string, styleNonce: string): string {
  return (
    `<meta property="csp-nonce" nonce="${styleNonce}">` + scripts.map((code) => `<script type="module" nonce="${nonce}">${code}</script>`).join('')
  )
}
