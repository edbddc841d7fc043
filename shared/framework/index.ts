/** What product code may import from shared/framework; everything else is the framework's own. */
export { createRouter, guarded, layout, route } from './route-table.js'
export { returnPath, RETURN_PARAM } from './return-path.js'
export * as searchParam from './search-param.js'
export * as field from './form-field.js'
export type { FieldDecl, FieldMessages } from './form-field.js'
export type { ActionFieldsDecl, FieldsDecl, InputOf } from './action-fields.js'
export type { StandardSchemaV1 } from './standard-schema.js'
export type { SearchDecl, SearchInput, SearchParamDecl, SearchValues } from './search-params.js'
export type {
  ActionFields,
  ActionFieldValues,
  ActionFileFields,
  ActionName,
  AnyLayout,
  AnyRoute,
  DataOf,
  GuardValueOf,
  LayoutDataOf,
  LayoutTable,
  PrefetchMode,
  RenderMode,
  RouteParams,
  RouteTable,
  Router,
  SearchOf,
} from './route-table.js'
export { ACTION_FIELD, actionInvalid, actionSuccess } from './actions.js'
export type { ActionInput, ActionOutcome, ActionState, AppTables, Changed, FieldErrors } from './actions.js'
export { ErrorCode, HttpError, notFound, redirect } from './errors.js'
export type { RedirectStatus } from './errors.js'
export type { HeadEntries } from './head.js'
export { describeBytes, describeTypes, MiB, UPLOAD_TYPES } from './uploads.js'
export type { FileRule, UploadedFile, UploadType } from './uploads.js'
