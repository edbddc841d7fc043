/** Server actions (docs/architecture.md, "Server actions"): the shapes both sides share. */

import { isSameSitePath } from './errors.js'
import type { UploadedFile } from './uploads.js'

export const ACTION_FIELD = '_action'

/** Every declared field ('' when absent), and every declared file field, checked and stored (null when none chosen). */
export type ActionInput<Fields extends string, FileFields extends string = never> = { readonly [F in Fields]: string } & {
  readonly [F in FileFields]: UploadedFile | null
}

export type FieldErrors<Fields extends string> = { readonly [F in Fields]?: string }

/**
 * Where an application names its route and layout tables for the type checker, as
 * TanStack Router's `Register` does: shared/routes.ts augments it with
 * `interface AppTables { routes: typeof routes; layouts: typeof layouts }`. Until then
 * any id type-checks, and only the server's run-time check stands.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by declaration merging
export interface AppTables {}

type TableIds<K extends string> = AppTables extends { readonly [Key in K]: infer Table } ? keyof Table & string : string

/** A route id of the application's table (any string before the table is registered). */
export type ChangedRouteId = TableIds<'routes'>
/** A layout id of the application's table. */
export type ChangedLayoutId = TableIds<'layouts'>

/**
 * Routes and layouts whose loaders read what the action wrote (docs/guide/forms-and-actions.md,
 * "Revalidation"). Naming nothing means anything may have changed: every cached page is stale.
 * The ids are the registered tables': a misspelt one does not compile.
 */
export interface Changed {
  readonly routes?: readonly ChangedRouteId[]
  readonly layouts?: readonly ChangedLayoutId[]
}

/** `Changed` as the framework passes it on: any ids, checked against the tables at run time. */
export interface ChangedOnWire {
  readonly routes?: readonly string[]
  readonly layouts?: readonly string[]
}

export type ActionOutcome<Fields extends string> =
  /** `redirect` is a path on this site; `changed` narrows what is loaded again. */
  | { readonly ok: true; readonly redirect?: string; readonly changed?: Changed }
  /** The submitted values come back, but never the secret fields'. */
  | { readonly ok: false; readonly fieldErrors: FieldErrors<Fields>; readonly formError?: string }

/** `actionSuccess()` goes back to the page, `actionSuccess('/path')` elsewhere on this site. */
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

export function actionInvalid<Fields extends string>(
  fieldErrors: FieldErrors<Fields>,
  formError?: string,
): { ok: false; fieldErrors: FieldErrors<Fields>; formError?: string } {
  return formError === undefined ? { ok: false, fieldErrors } : { ok: false, fieldErrors, formError }
}

/**
 * Part of the page payload after a 422, so no one types it all again. `ValueField` excludes
 * the secret fields: their values never come back (docs/guide/forms-and-actions.md, "Secret fields").
 */
export interface ActionState<ValueField extends string = string> {
  readonly action: string
  readonly fieldErrors: Readonly<Record<string, string>>
  readonly formError?: string
  readonly values: Readonly<Record<ValueField, string>>
}

/** For a form sent by JavaScript (`Accept: application/json`). */
export type ActionResponse<ValueField extends string = string> =
  { readonly ok: true; readonly redirect: string; readonly changed?: ChangedOnWire } | ({ readonly ok: false } & ActionState<ValueField>)
