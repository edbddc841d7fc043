import type { AnyPageImports, PageModule } from '../page-module.js'

/** Remembers loaded chunks, so a page already loaded renders synchronously (hydration and back/forward need that). */
export class PageModules {
  readonly #imports: AnyPageImports
  readonly #loaded = new Map<string, PageModule>()
  readonly #loading = new Map<string, Promise<PageModule>>()

  constructor(imports: AnyPageImports) {
    this.#imports = imports
  }

  get(routeId: string): PageModule | undefined {
    return this.#loaded.get(routeId)
  }

  load(routeId: string): Promise<PageModule> {
    const loaded = this.#loaded.get(routeId)
    if (loaded) return Promise.resolve(loaded)
    let loading = this.#loading.get(routeId)
    if (!loading) {
      const load = this.#imports[routeId]
      if (!load) return Promise.reject(new Error(`No page module for route "${routeId}"`))
      loading = load().then(
        ({ default: module }) => {
          this.#loaded.set(routeId, module)
          this.#loading.delete(routeId)
          return module
        },
        (error: unknown) => {
          // Forget the failure so a later attempt (after a deploy, say) can retry.
          this.#loading.delete(routeId)
          throw error
        },
      )
      this.#loading.set(routeId, loading)
    }
    return loading
  }
}
