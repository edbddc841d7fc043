/** Secret fields as the route table declares them (docs/guide/forms-and-actions.md, "Secret fields"). */
import type { ActionFields, ActionsDecl } from './route-table.js'
import type { FieldNamesOf } from './action-fields.js'

/** `{ signIn: ['password'] }`: a secret field's value reaches its action and nothing else, never a refused form. */
export type SecretsDecl = { readonly [action: string]: readonly string[] }

/** Only its actions, each naming only that action's fields. */
export type SecretsFor<Actions extends ActionsDecl> = { readonly [A in keyof Actions]?: readonly FieldNamesOf<Actions[A]>[] }

export type SecretsOf<R> = R extends { readonly secrets?: infer S extends SecretsDecl } ? S : {}
export type ActionSecretFields<R, A extends string> = SecretsOf<R> extends { readonly [K in A]: readonly (infer F)[] } ? F & string : never
/** What a refused form gets back: all but the secret ones. */
export type ActionValueFields<R, A extends string> = Exclude<ActionFields<R, A>, ActionSecretFields<R, A>>
