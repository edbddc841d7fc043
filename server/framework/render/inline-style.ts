/**
 * The app's stylesheet, inlined in every page document so the first paint waits for no
 * request. Allowed by its hash in the CSP's style-src, not a nonce, so a static page (the
 * same bytes for everyone) carries it too.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { BuildManifest } from '../../../shared/framework/build-manifest.js'
import { ASSETS_PREFIX } from '../../../shared/framework/constants.js'

export interface InlineStyle {
  readonly text: string
  /** `'sha256-…'` */
  readonly cspSource: string
}

/** Undefined in development, where Vite injects its own. */
export function readInlineStyle(clientDir: string, manifest: BuildManifest): InlineStyle | undefined {
  if (manifest.css.length === 0) return undefined
  const text = manifest.css.map((url) => readFileSync(path.join(clientDir, 'assets', url.slice(ASSETS_PREFIX.length)), 'utf8')).join('\n')
  // The text goes between <style> and </style>: it must not end the element early.
  if (/<\/style/i.test(text)) throw new Error('The stylesheet contains "</style", which would end its inline element')
  // The HTML parser turns CR LF into LF: the browser would hash other text than ours.
  if (text.includes('\r')) throw new Error('The stylesheet contains a carriage return, which would break its CSP hash')
  return { text, cspSource: `'sha256-${createHash('sha256').update(text).digest('base64')}'` }
}
