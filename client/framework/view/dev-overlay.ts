/**
 * `npm run dev` only: shows a failure in Vite's error overlay. Vite's client (loaded
 * only in development) defines the element; without it this does nothing, and
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

/**
 * A render error an error boundary caught in the browser (a Fast Refresh edit that
 * throws), with the components it happened in, as Next.js shows it: the boundary's
 * screen alone would not say what failed. Vite's client closes the overlay with the
 * next hot update, and React Refresh renders a failed boundary's children again.
 */
export function showCaughtRenderError(error: unknown, componentStack: string | undefined): void {
  const { message, stack } = error instanceof Error ? error : { message: String(error), stack: undefined }
  const components = componentStack ? `\n\nThe above error occurred in:${componentStack}` : ''
  showDevError({ message, stack: `${stack ?? ''}${components}` })
}
