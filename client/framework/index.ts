/**
 * The framework's door on the client side: what pages, layouts and client/application.ts
 * import. It runs on both sides (the server renders the same modules), so the browser
 * runtime is not here: only the browser entry imports it, from client/framework/start.ts.
 */
export { defineClientApp, type ClientApplication } from './client-app.js'
export { defineLayout, definePage } from './page-module.js'
export type { ErrorComponent, LayoutModule, LayoutProps, NotFoundComponent, PageModule, PageProps, RouteFailure } from './page-module.js'
export { Link, type LinkProps } from './view/link.js'
export { Form, type FieldProps, type FileInputProps, type FormApi, type FormProps } from './view/form.js'
export { useAction, type ActionHandle, type BoundFormProps } from './view/use-action.js'
export { Await, type AwaitProps, type PartFailure } from './view/await.js'
export { LongList, type LongListProps } from './view/long-list.js'
export { useNavigation } from './view/navigation-context.js'
export { usePageMatch, useRouteParams, type PageMatch } from './view/page-match.js'
export { ActionStateContext } from './view/action-state.js'
export { browserCookie } from './view/browser-cookie.js'
