/** The body limits the error registry's words name, kept apart so the error modules load nothing else. */

/** The largest urlencoded form accepted, and the most text a multipart one may carry besides its files. */
export const ACTION_BODY_LIMIT = 1024 * 1024

/**
 * The largest envelope request relayed. Browser events and transactions weigh well
 * under 200 KB; the app enables neither session replay nor attachments, which are what
 * approach Sentry's own 20 MiB limit. Each request is held in memory while it is
 * checked, so the bound is also what a burst of requests can cost. Raise it (at most
 * 20 MiB) if replay is turned on.
 */
export const TUNNEL_BODY_LIMIT = 1024 * 1024
