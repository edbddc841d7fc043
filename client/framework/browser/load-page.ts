/**
 * Fetches what a location needs to render: its page data and its route's chunk, both
 * at once (the route is known from the URL before the data arrives). Every failure
 * the page cannot recover from in place becomes `{ kind: 'reload' }`: the caller then
 * loads the URL as a document, so the user never faces a dead page.
 */
import { BUILD_ID_HEADER, LAYOUTS_HELD_HEADER } from '../../../shared/framework/constants.js'
import { DEFERRED_DATA_TYPE, type DeferredOutcome } from '../../../shared/framework/deferred.js'
import { dataUrl, isPayload, type AnyPayload, type RedirectPayload, type ScreenPayload } from '../../../shared/framework/page-payload.js'
import { deferredParts } from './deferred-parts.js'
import type { Router } from '../../../shared/framework/route-table.js'
import type { ReadyPage } from '../view/page-source.js'
import type { LayoutData } from './layout-data.js'
import type { PageModules } from './page-modules.js'

export type LoadResult =
  /** `fetchedAt`: when the data answered, which is what a cache lifetime counts from. */
  | { readonly kind: 'ready'; readonly page: ReadyPage; readonly fetchedAt: number }
  | { readonly kind: 'redirect'; readonly location: string }
  | { readonly kind: 'reload'; readonly reason: string }

export interface LoadContext {
  readonly buildId: string
  /** Any application's router: only `match` is used. */
  readonly router: Pick<Router<any>, 'match'>
  readonly modules: PageModules
  /** The layout data held: named in the request, put back into the answer. */
  readonly layouts: LayoutData
  readonly now: () => number
}

export async function loadPage(key: string, ctx: LoadContext): Promise<LoadResult> {
  const pathname = key.split('?', 1)[0]!
  const expectedRoute = ctx.router.match(pathname)?.id
  // Start the chunk now; its failure is looked at only if the page needs it.
  const chunk = expectedRoute ? ctx.modules.load(expectedRoute) : undefined
  chunk?.catch(() => {})

  const held = ctx.layouts.heldFor(expectedRoute)
  // Another build's server answers this before running any loader (see BUILD_ID_HEADER).
  const headers: Record<string, string> = { accept: 'application/json', [BUILD_ID_HEADER]: ctx.buildId }
  if (held.size > 0) headers[LAYOUTS_HELD_HEADER] = [...held.keys()].join(',')

  let answer: unknown
  let fetchedAt: number
  let rest: AsyncIterator<string> | undefined
  try {
    const response = await fetch(dataUrl(key), { headers, credentials: 'same-origin' })
    fetchedAt = ctx.now()
    if (response.headers.get('content-type')?.startsWith(DEFERRED_DATA_TYPE) && response.body) {
      // The payload first, its deferred parts after it, one per line, as they settle.
      rest = linesOf(response.body)
      const first = await rest.next()
      answer = first.done ? undefined : JSON.parse(first.value)
    } else {
      answer = await response.json()
    }
  } catch (error) {
    return { kind: 'reload', reason: `page data request failed: ${String(error)}` }
  }
  if (!isPayload(answer)) return { kind: 'reload', reason: 'page data answer is not a page payload' }
  if (answer.buildId !== ctx.buildId) return { kind: 'reload', reason: 'another build answered' }
  if (answer.kind !== 'redirect' && rest) answer = receiveParts(answer, rest)
  const body = ctx.layouts.complete(answer as AnyPayload, held, fetchedAt)
  if (body.kind === 'redirect') return { kind: 'redirect', location: (body as RedirectPayload).location }
  // A route's failure screens may be its own (its module's boundaries): load it too.
  if (body.routeId === undefined) return { kind: 'ready', page: { payload: body }, fetchedAt }

  try {
    const module = await (body.routeId === expectedRoute && chunk ? chunk : ctx.modules.load(body.routeId))
    return { kind: 'ready', page: { payload: body, module }, fetchedAt }
  } catch (error) {
    return { kind: 'reload', reason: `route chunk failed to load: ${String(error)}` }
  }
}

/** The payload with a promise for each deferred part, settled as the rest of the answer arrives. */
function receiveParts(payload: ScreenPayload, rest: AsyncIterator<string>): ScreenPayload {
  const parts = deferredParts(payload)
  void (async () => {
    try {
      for (let line = await rest.next(); !line.done; line = await rest.next()) parts.settle(JSON.parse(line.value) as DeferredOutcome)
    } catch {
      // The connection broke: what has not come fails below, in its boundary.
    }
    parts.end('This part of the page did not arrive. Check your connection and try again.')
  })()
  return parts.payload
}

/** The lines of a streamed answer, as they arrive. */
async function* linesOf(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffered = ''
  for (;;) {
    const { done, value } = await reader.read()
    buffered += done ? decoder.decode() : decoder.decode(value, { stream: true })
    let end: number
    while ((end = buffered.indexOf('\n')) !== -1) {
      const line = buffered.slice(0, end)
      buffered = buffered.slice(end + 1)
      if (line.trim() !== '') yield line
    }
    if (done) return
  }
}
