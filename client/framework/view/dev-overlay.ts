/** `npm run dev` only: Vite's client defines the overlay element; without it this does nothing. */
import type { DevError } from '../../../shared/framework/page-payload.js'

type OverlayElement = new (error: DevError) => HTMLElement

export function showDevError(error: DevError): void {
  const Overlay = customElements.get('vite-error-overlay') as OverlayElement | undefined
  if (!Overlay) return
  document.querySelectorAll('vite-error-overlay').forEach((open) => open.remove())
  document.body.append(new Overlay(error))
}

/** As Next.js shows it: the boundary's page alone would not say what failed. */
export function showCaughtRenderError(error: unknown, componentStack: string | undefined): void {
  const { message, stack } = error instanceof Error ? error : { message: String(error), stack: undefined }
  const components = componentStack ? `\n\nThe above error occurred in:${componentStack}` : ''
  showDevError({ message, stack: `${stack ?? ''}${components}` })
}
