/** The action a form names, on the page's route or a layout around it. */
import { ACTION_FIELD } from '../../../shared/framework/actions.js'
import type { ActionFieldsDecl } from '../../../shared/framework/action-fields.js'
import { actionOwner, type ActionOwner } from '../../../shared/framework/route-actions.js'
import type { RouteMatch } from '../../../shared/framework/route-table.js'
import type { FileFieldsDecl } from '../../../shared/framework/uploads.js'
import { errors, type ClientError } from '../error-registry.js'
import type { ActionHandler, AnyAppDefinition } from '../page-definition.js'

type Handlers = Readonly<Record<string, ActionHandler<any, any, string>>>

export interface FoundAction {
  readonly name: string
  readonly owner: ActionOwner
  readonly fields: ActionFieldsDecl
  /** Those of its fields whose values never go back with a refused form. */
  readonly secrets: readonly string[]
  readonly files: FileFieldsDecl | undefined
  readonly handler: ActionHandler<any, any, string>
}

/** Own properties only, so `toString` is not an action. */
export function actionNamed(definition: AnyAppDefinition, match: RouteMatch | null, name: string | null): FoundAction | ClientError {
  if (!name) return errors.NO_ACTION(ACTION_FIELD)
  const owner = actionOwner(definition.router, match?.id, name)
  const handlers = (
    owner?.kind === 'route' ? definition.serverPages[owner.id]?.actions : owner ? definition.serverLayouts[owner.id]?.actions : undefined
  ) as Handlers | undefined
  const handler = owner && handlers && Object.hasOwn(handlers, name) ? handlers[name] : undefined
  if (!owner || !handler) {
    return errors.UNKNOWN_ACTION(JSON.stringify(name.slice(0, 100)))
  }
  // Files are a route's (a layout's form is on every page: it takes none).
  const files = owner.kind === 'route' ? match?.route.files : undefined
  return {
    name,
    owner,
    fields: owner.fields,
    secrets: owner.secrets,
    handler,
    files: files && Object.hasOwn(files, name) ? files[name] : undefined,
  }
}
