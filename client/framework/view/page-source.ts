/**
 * Where the page host reads the page for a location. In the browser it is the
 * location-keyed page store; during SSR, the one page the server resolved. Reading
 * by location (not from navigation events) is what keeps back/forward and raw
 * History calls, which bypass `aroundNav`, showing the right page.
 */
import { createContext } from 'react'
import type { ScreenPayload } from '../../../shared/framework/page-payload.js'
import type { PageModule } from '../page-module.js'

/** A page ready to render: its payload and, for a route's page, its loaded module. */
export interface ReadyPage {
  readonly payload: ScreenPayload
  readonly module?: PageModule
}

export interface PageSource {
  subscribe(onChange: () => void): () => void
  read(key: string): ReadyPage | undefined
  /** The location shows a page the source does not hold yet: fetch it. */
  request(key: string): void
  /** `page`, shown for `key`, has just been replaced on screen by another location's. */
  left?(key: string, page: ReadyPage): void
}

/** The source for one server render: it holds exactly the page being rendered. */
export function singlePageSource(key: string, page: ReadyPage): PageSource {
  return {
    subscribe: () => () => {},
    read: (k) => (k === key ? page : undefined),
    request: () => {},
  }
}

export const PageSourceContext = createContext<PageSource | null>(null)
