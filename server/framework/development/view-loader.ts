/**
 * Loads ssr-entry.ts through Vite's module runner. A module that cannot be loaded is that request's
 * failure, not the server's: /api never asks for the view, and the next page request loads again.
 */
import type { ModuleRunner } from 'vite/module-runner'
import type { AppView } from '../render/app-view.js'

export type ViewLoad = { readonly ok: true; readonly view: AppView } | { readonly ok: false; readonly error: unknown }

export interface ViewLoader {
  load(): Promise<ViewLoad>
  /** The last load that worked. */
  current(): AppView
}

/** A function: Vite replaces its environments when it restarts itself. */
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
      // The runner keeps a failed import's modules: after the fix, its importers would keep their failure.
      // Vite's own transform cache still spares the unchanged ones.
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
