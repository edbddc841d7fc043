/**
 * Page-delivery constants (docs/architecture.md, "Constants"). Client and server
 * read them from here so the two sides never disagree.
 */

/** How long prefetched page data of a dynamic route stays usable, from when it was fetched. */
export const DYNAMIC_DATA_TTL_MS = 30_000

/** How long prefetched page data of a static route stays usable, from when it was fetched. */
export const STATIC_DATA_TTL_MS = 300_000

/** How many prefetch requests may be in flight at once. */
export const MAX_PREFETCH_IN_FLIGHT = 5

/** A navigation whose chunk and data are not ready after this long becomes a full page load. */
export const ROUTE_LOAD_TIMEOUT_MS = 3_800

/** The most breadcrumbs the browser's error reporter keeps. */
export const MAX_BREADCRUMBS = 100

/** Where page data is served: `${DATA_PREFIX}${page path}${search}`. */
export const DATA_PREFIX = '/_data'

/** Where the client build's files are served from. */
export const ASSETS_PREFIX = '/assets/'

/** The id of the `<script type="application/json">` element carrying the first page's data. */
export const BOOTSTRAP_ELEMENT_ID = '__page_data'

/** The id of the `<script type="application/json">` element carrying the browser's monitoring config. */
export const MONITORING_ELEMENT_ID = '__monitoring'

/** The id of the element React renders into. */
export const ROOT_ELEMENT_ID = 'root'

/** The id of the `<main>` element that holds the page: the skip target, where focus goes after a navigation. */
export const MAIN_ELEMENT_ID = 'main'

/**
 * The request header of a page-data fetch that names the layouts (comma-separated ids)
 * whose data the browser holds fresh: a dynamic page's answer leaves their data out.
 */
export const LAYOUTS_HELD_HEADER = 'x-layouts-held'

/**
 * The request header of a page-data fetch that names the build the browser runs. A
 * request from another build is answered at once, before any loader runs, with the
 * server's build id alone: the browser then loads the page as a document, and what a
 * loader hands out once (a flash message) is still there for it.
 */
export const BUILD_ID_HEADER = 'x-build-id'
