/**
 * The app's stylesheet, written into every page document instead of linked: the first
 * paint then waits for no request (a linked stylesheet blocks rendering until it has
 * arrived). Allowed by its hash in the CSP's style-src, the same on every answer, so a
 * static page (sent to everyone as the same bytes, without a nonce) carries it too.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { BuildManifest } from '../../../shared/framework/build-manifest.js'
import { ASSETS_PREFIX } from '../../../shared/framework/constants.js'

export interface InlineStyle {
  /** The stylesheets' text, in the manifest's order. */
  readonly text: string
  /** Its CSP source: `'sha256-…'`. */
  readonly cspSource: string
}

/** Reads the build's stylesheets once, at start; none (development: Vite injects its own) gives undefined. */
export function readInlineStyle(clientDir: string, manifest: BuildManifest): InlineStyle | undefined {
  if (manifest.css.length === 0) return undefined
  const text = manifest.css.map((url) => readFileSync(path.join(clientDir, 'assets', url.slice(ASSETS_PREFIX.length)), 'utf8')).join('\n')
  // The text goes between <style> and </style>: it must not end the element early.
  if (/<\/style/i.test(text)) throw new Error('The stylesheet contains "</style", which would end its inline element')
  // The HTML parser turns CR LF into LF: the browser would hash other text than ours.
  if (text.includes('\r')) throw new Error('The stylesheet contains a carriage return, which would break its CSP hash')
  return { text, cspSource: `'sha256-${createHash('sha256').update(text).digest('base64')}'` }
}
