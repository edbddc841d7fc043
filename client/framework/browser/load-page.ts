/**
 * Fetches a location's page data and route chunk at once. Every failure the page
 * cannot recover from in place becomes `{ kind: 'reload' }`: a document load, never a dead page.
 */
import { BUILD_ID_HEADER, CACHED_LAYOUTS_HEADER } from '../../../shared/framework/constants.js'
import { DEFERRED_DATA_TYPE } from '../../../shared/framework/deferred.js'
import { dataUrl, isPayload, type AnyPayload, type RedirectPayload } from '../../../shared/framework/page-payload.js'
import { deferredPartsModule, type StreamedParts } from './deferred-parts-module.js'
import type { Router } from '../../../shared/framework/route-table.js'
import type { ReadyPage } from '../view/page-source.js'
import type { LayoutData } from './layout-data.js'
import type { PageModules } from './page-modules.js'

export type LoadResult =
  /** `fetchedAt`: when the data arrived, which is what a cache lifetime counts from. */
  | { readonly kind: 'ready'; readonly page: ReadyPage; readonly fetchedAt: number }
  | { readonly kind: 'redirect'; readonly location: string }
  | { readonly kind: 'reload'; readonly reason: string }

export interface LoadContext {
  readonly buildId: string
  readonly router: Pick<Router<any>, 'match'>
  readonly modules: PageModules
  readonly layouts: LayoutData
  readonly now: () => number
}

export async function loadPage(key: string, ctx: LoadContext): Promise<LoadResult> {
  const pathname = key.split('?', 1)[0]!
  const expectedRoute = ctx.router.match(pathname)?.id
  // Start the chunk now; its failure is looked at only if the page needs it.
  const chunk = expectedRoute ? ctx.modules.load(expectedRoute) : undefined
  chunk?.catch(() => {})

  const cached = ctx.layouts.freshFor(expectedRoute)
  const since = ctx.layouts.changes
  // Another build's server responds to this before running any loader (see BUILD_ID_HEADER).
  const headers: Record<string, string> = { accept: 'application/json', [BUILD_ID_HEADER]: ctx.buildId }
  if (cached.size > 0) headers[CACHED_LAYOUTS_HEADER] = [...cached.keys()].join(',')

  let answer: unknown
  let fetchedAt: number
  let streamed: StreamedParts | undefined
  try {
    const response = await fetch(dataUrl(key), { headers, credentials: 'same-origin' })
    fetchedAt = ctx.now()
    if (response.headers.get('content-type')?.startsWith(DEFERRED_DATA_TYPE) && response.body) {
      // The payload first, then its deferred parts one per line, read by a module loaded for such pages only.
      const parts = (await deferredPartsModule()).streamedParts(response.body)
      streamed = parts
      answer = await parts.payload
    } else {
      answer = await response.json()
    }
  } catch (error) {
    streamed?.cancel()
    return { kind: 'reload', reason: `page data request failed: ${String(error)}` }
  }
  if (!isPayload(answer) || answer.buildId !== ctx.buildId) {
    streamed?.cancel()
    return { kind: 'reload', reason: isPayload(answer) ? 'another build answered' : 'page data answer is not a page payload' }
  }
  if (answer.kind !== 'redirect' && streamed) answer = streamed.receive(answer)
  const body = ctx.layouts.complete(answer as AnyPayload, cached, fetchedAt, since)
  if (body.kind === 'redirect') return { kind: 'redirect', location: (body as RedirectPayload).location }
  // A route's failure pages may be its own (its module's boundaries): load it too.
  if (body.routeId === undefined) return { kind: 'ready', page: { payload: body }, fetchedAt }

  try {
    const module = await (body.routeId === expectedRoute && chunk ? chunk : ctx.modules.load(body.routeId))
    return { kind: 'ready', page: { payload: body, module }, fetchedAt }
  } catch (error) {
    streamed?.cancel()
    return { kind: 'reload', reason: `route chunk failed to load: ${String(error)}` }
  }
}
