/**
 * The exact words of the generic error pages, which users and support staff search
 * for: the server renders them into HTML, the browser into its error boundary.
 */
export const SERVER_ERROR_TEXT = 'Application error: a server-side exception has occurred (see the server logs for more information).'
export const CLIENT_ERROR_TEXT = 'Application error: a client-side exception has occurred (see the browser console for more information)'
/** The not-found page's words, and those of every other 404 of a page. */
export const NOT_FOUND_TEXT = 'This page could not be found.'
/** A refusal below 500 that carries no message of its own. */
export const REFUSAL_TEXT = 'The request could not be completed.'
