/** What the product's server side imports; everything else in server/framework/ is the framework's own. */
export { defineServerApp, ApplicationError, type Application, type ServerApplication } from './application.js'
export { defineServerLayout, defineServerPage } from './page-definition.js'
export type {
  ActionContext,
  ActionHandler,
  AppDefinition,
  LayoutActionContext,
  LayoutLoaderContext,
  LoaderContext,
  ServerLayout,
  ServerLayouts,
  ServerPage,
} from './page-definition.js'
export type { RequestSession } from './session.js'
export type { CookieOptions, ResponseControl } from './response-control.js'
export { sessionOf } from './response-control.js'
export { hashPasswordSync, passwordHashOf, unmatchedPasswordHash, verifyPassword, type PasswordHash } from './passwords.js'
export { markServerOnly, markServerOnlyValue, ServerOnlyError, type ServerOnly } from './server-only.js'
export { defineGuard, guardValue, redirectToSignIn, type Guard, type GuardContext } from './guards.js'
export { API_ERROR_SCHEMA, errorBody, NO_STORE } from './error-responses.js'
export { errors } from './error-registry.js'
export { buildApp, type BuildAppOptions } from './app.js'
export { runServer } from './run-server.js'
export { keepUpload, readStoredFile, sendStoredFile, type SendStoredFileOptions, type StoredFile } from './uploads/private-files.js'
export { ConfigError, defineConfig, defineVariable, type ProductConfig, type Variable } from './config.js'
