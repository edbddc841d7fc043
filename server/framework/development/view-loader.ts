/**
 * Loads the server's React side (ssr-entry.ts) through Vite's module runner, for the
 * requests that render a page. A module that cannot be loaded (a syntax error, an
 * import of a file renamed away) is that request's failure, not the server's: /api and
 * Vite's own modules never ask for the view, and the next page request loads again.
 */
import type { ModuleRunner } from 'vite/module-runner'
import type { AppView } from '../render/app-view.js'

export type ViewLoad = { readonly ok: true; readonly view: AppView } | { readonly ok: false; readonly error: unknown }

export interface ViewLoader {
  /** The view as the files are now: a cache hit unless one changed since the last load. */
  load(): Promise<ViewLoad>
  /** The view of the last load that worked (what a page request loaded just before). */
  current(): AppView
}

/** `runner`: Vite's ssr runner as it is now (Vite replaces its environments when it restarts itself). */
export function viewLoader(runner: () => ModuleRunner, entry: string): ViewLoader {
  let last: ViewLoad | undefined
  let lastGood: AppView | undefined
  let loading: Promise<ViewLoad> | undefined

  async function importEntry(): Promise<ViewLoad> {
    try {
      const { view } = (await runner().import(entry)) as { view: AppView }
      lastGood = view
      return { ok: true, view }
    } catch (error) {
      // The runner keeps a failed import's modules as they were: after the fix, only the
      // edited file would be fetched again, and its importers would keep their failure.
      // Forgotten, every module is fetched again by the next load (Vite's own transform
      // cache still spares the unchanged ones).
      runner().evaluatedModules.clear()
      return { ok: false, error }
    }
  }

  return {
    load() {
      // Requests that arrive together share one load.
      loading ??= importEntry().then((result) => {
        last = result
        loading = undefined
        return result
      })
      return loading
    },
    current() {
      if (lastGood) return lastGood
      throw last && !last.ok ? last.error : new Error('the pages were not loaded yet (server/framework/development/ssr-entry.ts)')
    },
  }
}
