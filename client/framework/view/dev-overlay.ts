/**
 * `npm run dev` only: shows a server failure in Vite's error overlay. Vite's client
 * (loaded only in development) defines the element; without it this does nothing, and
 * production payloads never carry the error anyway.
 */
import type { DevError } from '../../../shared/framework/page-payload.js'

type OverlayElement = new (error: DevError) => HTMLElement

export function showDevError(error: DevError): void {
  const Overlay = customElements.get('vite-error-overlay') as OverlayElement | undefined
  if (!Overlay) return
  document.querySelectorAll('vite-error-overlay').forEach((open) => open.remove())
  document.body.append(new Overlay(error))
}
