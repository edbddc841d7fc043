/**
 * Secret fields as the route table declares them (docs/guide/forms-and-actions.md,
 * "Secret fields"), and the field types derived from them.
 */
import type { ActionFields, ActionsDecl } from './route-table.js'

/**
 * The secret fields of a route's or a layout's actions, by action: `{ signIn: ['password'] }`.
 * A secret field's value reaches its action and nothing else: a refused form comes back
 * without it (docs/guide/forms-and-actions.md, "Secret fields").
 */
export type SecretsDecl = { readonly [action: string]: readonly string[] }

/** What `secrets` may say of `Actions`: only its actions, each naming only that action's fields. */
export type SecretsFor<Actions extends ActionsDecl> = { readonly [A in keyof Actions]?: readonly Actions[A][number][] }

/** The secret fields a route or a layout declares, by action. */
export type SecretsOf<R> = R extends { readonly secrets?: infer S extends SecretsDecl } ? S : {}
/** The secret field names of one action: `'password'` (`never` for an action without). */
export type ActionSecretFields<R, A extends string> = SecretsOf<R> extends { readonly [K in A]: readonly (infer F)[] } ? F & string : never
/** The fields of one action whose submitted values a refused form gets back: all but the secret ones. */
export type ActionValueFields<R, A extends string> = Exclude<ActionFields<R, A>, ActionSecretFields<R, A>>
