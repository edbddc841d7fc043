/** Which actions a page takes (docs/architecture.md, "Server actions"). Only the server asks, so this stays out of the browser's bundle. */
import type { ActionsDecl, Router, SecretsDecl } from './route-table.js'
import type { ActionFieldsDecl } from './action-fields.js'

export interface ActionOwner {
  readonly kind: 'route' | 'layout'
  readonly id: string
  /** As the route table declares them: names, schemas, or one schema for the form. */
  readonly fields: ActionFieldsDecl
  /** Their values are never sent back. */
  readonly secrets: readonly string[]
}

type AnyRouter = Pick<Router<any, any>, 'routes' | 'layoutsOf'>

function hasActions(owner: { readonly actions?: ActionsDecl | undefined }): boolean {
  return Object.keys(owner.actions ?? {}).length > 0
}

/** Own properties only. */
function secretsOf(owner: { readonly secrets?: SecretsDecl | undefined }, name: string): readonly string[] {
  return owner.secrets && Object.hasOwn(owner.secrets, name) ? (owner.secrets[name] ?? []) : []
}

/** `routeId` undefined: a path no route matches, which is in the root layout. */
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

/** The `Allow` header: POST only when the page or a layout around it has actions. */
export function allowedMethods(router: AnyRouter, routeId: string | undefined): string {
  const route = routeId !== undefined ? router.routes[routeId] : undefined
  const posts = (route && hasActions(route)) || router.layoutsOf(routeId).some(hasActions)
  return posts ? 'GET, HEAD, POST' : 'GET, HEAD'
}
