/** The body limits the error registry's words name, kept apart so the error modules load nothing else. */

/** Also the most text a multipart form may carry besides its files. */
export const ACTION_BODY_LIMIT = 1024 * 1024

/**
 * Events weigh well under 200 KB; only replay and attachments (off here) approach Sentry's 20 MiB.
 * Each request is held in memory while checked: raise it (at most 20 MiB) only if replay is turned on.
 */
export const TUNNEL_BODY_LIMIT = 1024 * 1024
