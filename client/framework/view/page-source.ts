/**
 * Where the page host reads the page for a location: the page store in the browser, the
 * one resolved page in SSR. Reading by location keeps back/forward and raw History
 * calls, which bypass `aroundNav`, showing the right page.
 */
import { createContext } from 'react'
import type { RenderPayload } from '../../../shared/framework/page-payload.js'
import type { PageModule } from '../page-module.js'

export interface ReadyPage {
  readonly payload: RenderPayload
  readonly module?: PageModule
}

export interface PageSource {
  subscribe(onChange: () => void): () => void
  read(key: string): ReadyPage | undefined
  request(key: string): void
  /** `page` has just been replaced on screen by another location's. */
  left?(key: string, page: ReadyPage): void
}

export function singlePageSource(key: string, page: ReadyPage): PageSource {
  return {
    subscribe: () => () => {},
    read: (k) => (k === key ? page : undefined),
    request: () => {},
  }
}

export const PageSourceContext = createContext<PageSource | null>(null)
