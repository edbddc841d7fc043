/** Browser errors that are not ours to fix (docs/architecture.md, "Monitoring"); a reason per entry. */

/** Sentry's `ignoreErrors`: substring or pattern. */
export const IGNORED_MESSAGES: ReadonlyArray<string | RegExp> = [
  // Browsers report a ResizeObserver callback that changed layout again; harmless.
  /ResizeObserver loop (limit exceeded|completed with undelivered notifications)/,
  // A cross-origin script failed and the browser hid the details: nothing to act on.
  /^Script error\.?$/,
  // A promise rejected with something that is not an Error (extensions, third-party tags).
  /^Non-Error promise rejection captured/,
  /^Object captured as promise rejection with keys/,
  // Old in-page toolbars and translation widgets poking at globals that do not exist.
  'top.GLOBALS',
  /^(Uncaught )?ReferenceError: (ztePageScrollModule|__gCrWeb|webkit)/,
  // The user navigated away while a fetch was running; the navigation engine handles it.
  /^(AbortError|The (user aborted a request|operation was aborted))/,
]

/** Code injected by browser extensions. */
export const DENIED_URLS: readonly RegExp[] = [
  /^chrome-extension:\/\//i,
  /^moz-extension:\/\//i,
  /^safari-(web-)?extension:\/\//i,
  /^ms-browser-extension:\/\//i,
  // Safari hides extension script URLs behind this scheme.
  /^webkit-masked-url:\/\//i,
]
