/**
 * Server actions (docs/architecture.md, "Server actions"): a form posted to its own page, naming the action in a
 * hidden `_action` field. Both sides share these shapes: the action's outcome, and
 * the state a page is rendered with after a failed submission.
 */

import { isSameSitePath } from './errors.js'
import type { UploadedFile } from './uploads.js'

/** The hidden field that names the action a form posts to. */
export const ACTION_FIELD = '_action'

/**
 * What an action receives: every declared field, as submitted ('' when absent), and
 * every declared file field, checked and stored (null when no file was chosen).
 */
export type ActionInput<Fields extends string, FileFields extends string = never> = { readonly [F in Fields]: string } & {
  readonly [F in FileFields]: UploadedFile | null
}

/** Errors to show next to fields, and one for the form as a whole. */
export type FieldErrors<Fields extends string> = { readonly [F in Fields]?: string }

/**
 * What an action changed, so the browser refreshes only those (docs/guide/forms-and-actions.md,
 * "Revalidation"): the routes and layouts, by id, whose loaders read what it wrote. An
 * action that names nothing changed what any page may show: every loader on screen
 * runs again and every other cached page is stale.
 */
export interface Changed {
  readonly routes?: readonly string[]
  readonly layouts?: readonly string[]
}

export type ActionOutcome<Fields extends string> =
  /** Done: go to `redirect` (a path on this site), or back to the page; `changed` narrows what is loaded again. */
  | { readonly ok: true; readonly redirect?: string; readonly changed?: Changed }
  /** Refused: the page again, with these errors and the submitted values (but the secret fields'). */
  | { readonly ok: false; readonly fieldErrors: FieldErrors<Fields>; readonly formError?: string }

/**
 * The action succeeded: `actionSuccess()` goes back to the page, `actionSuccess('/path')`
 * elsewhere on this site; `actionSuccess({ redirect?, changed })` names what it changed.
 */
export function actionSuccess(to?: string | { readonly redirect?: string; readonly changed?: Changed }): {
  ok: true
  redirect?: string
  changed?: Changed
} {
  const { redirect, changed } = typeof to === 'object' ? to : { redirect: to, changed: undefined }
  if (redirect !== undefined && !isSameSitePath(redirect)) {
    throw new TypeError(`An action redirects to a path on this site, got ${JSON.stringify(redirect)}`)
  }
  return { ok: true, ...(redirect !== undefined ? { redirect } : {}), ...(changed ? { changed } : {}) }
}

/** The submission was invalid: say why, per field. */
export function actionInvalid<Fields extends string>(
  fieldErrors: FieldErrors<Fields>,
  formError?: string,
): { ok: false; fieldErrors: FieldErrors<Fields>; formError?: string } {
  return formError === undefined ? { ok: false, fieldErrors } : { ok: false, fieldErrors, formError }
}

/**
 * A failed submission as the page shows it: which action, its errors, and what was
 * submitted (so no one types it all again). Part of the page payload after a 422.
 * `ValueField`: the fields whose values come back, every field of the action but its
 * secret ones (`ActionValueFields` in ./route-table.ts); a secret field's value never
 * does (docs/guide/forms-and-actions.md, "Secret fields").
 */
export interface ActionState<ValueField extends string = string> {
  readonly action: string
  readonly fieldErrors: Readonly<Record<string, string>>
  readonly formError?: string
  readonly values: Readonly<Record<ValueField, string>>
}

/** The JSON answer to a form sent by JavaScript (`Accept: application/json`). */
export type ActionResponse<ValueField extends string = string> =
  { readonly ok: true; readonly redirect: string; readonly changed?: Changed } | ({ readonly ok: false } & ActionState<ValueField>)
