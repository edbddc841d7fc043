/**
 * The layout table's rules the types cannot see, checked by the server at start-up
 * (server/framework/app.ts), not in the router: the browser's bundle does not need the messages.
 * A misspelled secret field would be sent back, so each must be one of its action's fields.
 */
import { fieldNamesOf } from './action-fields.js'
import type { ActionsDecl, AnyLayout, AnyRoute, LayoutTable, Router, SecretsDecl } from './route-table.js'
import { sharedCacheProblem } from './shared-cache.js'

export function checkLayoutRules(router: Pick<Router<any, any>, 'routes' | 'layouts' | 'layoutsOf'>): void {
  const { routes, layouts } = router
  const root = checkLayouts(layouts)
  for (const [id, route] of Object.entries(routes as Readonly<Record<string, AnyRoute>>)) {
    checkRouteChain(id, route, router.layoutsOf(id), layouts, root)
    checkSecrets(`Route "${id}"`, route)
    checkSharedCache(id, route)
  }
  for (const [id, layout] of Object.entries(layouts as LayoutTable)) checkSecrets(`Layout "${id}"`, layout)
}

function checkSharedCache(id: string, route: AnyRoute): void {
  if (!route.sharedCache) return
  if (route.mode !== 'static') {
    throw new Error(`Route "${id}" declares sharedCache but is ${route.mode}: only a static page is the same for every visitor`)
  }
  const problem = sharedCacheProblem(route.sharedCache)
  if (problem) throw new Error(`Route "${id}": sharedCache.${problem}`)
}

function checkSecrets(owner: string, { actions = {}, secrets = {} }: { readonly actions?: ActionsDecl; readonly secrets?: SecretsDecl }): void {
  for (const [action, fields] of Object.entries(secrets)) {
    if (!Object.hasOwn(actions, action)) throw new Error(`${owner} declares secret fields for "${action}", which is not one of its actions`)
    // A whole-form schema's fields are its own to know.
    const names = fieldNamesOf(actions[action]!)
    for (const field of fields) {
      if (names && !names.includes(field)) throw new Error(`${owner}: secret field "${field}" is not one of action "${action}"'s fields`)
    }
  }
}

/** Returns the root (undefined for an application without layouts). */
function checkLayouts(layouts: LayoutTable): AnyLayout | undefined {
  const all = Object.entries(layouts)
  if (all.length === 0) return undefined
  for (const [key, layout] of all) {
    if (layout.id !== key) throw new Error(`Layout "${key}": its id is "${layout.id}"; a layout's id must be its key in the layout table`)
    if (layout.parent && layouts[layout.parent.id] !== layout.parent) {
      throw new Error(`Layout "${key}": its parent "${layout.parent.id}" is not in the layout table`)
    }
    if (layout.mode === 'static' && layout.guard) {
      throw new Error(`Layout "${key}" is static but has a guard: a static layout's answer is shared by every visitor`)
    }
    if (layout.mode === 'static' && layout.parent?.mode === 'dynamic') {
      throw new Error(`Layout "${key}" is static but its parent "${layout.parent.id}" is dynamic: a static layout's answer is shared`)
    }
  }
  const roots = all.filter(([, layout]) => !layout.parent).map(([key]) => key)
  if (roots.length !== 1)
    throw new Error(`The layout table needs exactly one root layout (one without a parent); it has ${roots.length}: ${roots.join(', ') || 'none'}`)
  return layouts[roots[0]!]
}

function checkRouteChain(id: string, route: AnyRoute, chain: readonly AnyLayout[], layouts: LayoutTable, root: AnyLayout | undefined): void {
  // With or without a layout table: the first visitor the guard let through would fill the static cache for everyone.
  if (route.mode === 'static' && route.guard) {
    throw new Error(`Route "${id}" is static but has a guard: a static page's answer is shared by every visitor`)
  }
  if (!root) {
    if (route.layout) throw new Error(`Route "${id}" names layout "${route.layout.id}", but the application has no layout table`)
    return
  }
  for (const layout of chain) {
    if (layouts[layout.id] !== layout) throw new Error(`Route "${id}": its layout "${layout.id}" is not in the layout table`)
    if (route.mode === 'static' && layout.mode === 'dynamic') {
      throw new Error(`Route "${id}" is static but sits in the dynamic layout "${layout.id}": a static page's answer is shared`)
    }
  }
  const seen = new Map<string, string>(Object.keys(route.actions ?? {}).map((name) => [name, `route "${id}"`]))
  for (const layout of chain) {
    for (const name of Object.keys(layout.actions ?? {})) {
      const other = seen.get(name)
      if (other) throw new Error(`Action "${name}" is declared by both ${other} and layout "${layout.id}" around route "${id}"`)
      seen.set(name, `layout "${layout.id}"`)
    }
  }
}
