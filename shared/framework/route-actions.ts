/**
 * Which actions a page takes: its route's and those of the layouts around it
 * (docs/architecture.md, "Server actions", "Layouts"). Only the server asks, so this
 * stays out of the router (and of the browser's bundle).
 */
import type { ActionsDecl, Router, SecretsDecl } from './route-table.js'

/** Where an action is declared: on the page's route, or on one of the layouts around it. */
export interface ActionOwner {
  readonly kind: 'route' | 'layout'
  /** The route's or the layout's id. */
  readonly id: string
  /** The fields its form posts. */
  readonly fields: readonly string[]
  /** Those of its fields that are secret: their values are never sent back. */
  readonly secrets: readonly string[]
}

type AnyRouter = Pick<Router<any, any>, 'routes' | 'layoutsOf'>

function hasActions(owner: { readonly actions?: ActionsDecl | undefined }): boolean {
  return Object.keys(owner.actions ?? {}).length > 0
}

/** The secret fields of `owner`'s action `name` (own properties only). */
function secretsOf(owner: { readonly secrets?: SecretsDecl | undefined }, name: string): readonly string[] {
  return owner.secrets && Object.hasOwn(owner.secrets, name) ? (owner.secrets[name] ?? []) : []
}

/**
 * The action `name` a form posts to a page (`routeId` undefined: a path no route
 * matches, which is in the root layout), from its route or its layouts; undefined when
 * none declares it.
 */
export function actionOwner(router: AnyRouter, routeId: string | undefined, name: string): ActionOwner | undefined {
  const route = routeId !== undefined ? router.routes[routeId] : undefined
  if (route?.actions && Object.hasOwn(route.actions, name)) {
    return { kind: 'route', id: routeId!, fields: route.actions[name]!, secrets: secretsOf(route, name) }
  }
  for (const layout of router.layoutsOf(routeId)) {
    if (layout.actions && Object.hasOwn(layout.actions, name)) {
      return { kind: 'layout', id: layout.id, fields: layout.actions[name]!, secrets: secretsOf(layout, name) }
    }
  }
  return undefined
}

/** The methods a page answers (its `Allow` header): POST only when it or a layout around it has actions. */
export function allowedMethods(router: AnyRouter, routeId: string | undefined): string {
  const route = routeId !== undefined ? router.routes[routeId] : undefined
  const posts = (route && hasActions(route)) || router.layoutsOf(routeId).some(hasActions)
  return posts ? 'GET, HEAD, POST' : 'GET, HEAD'
}
