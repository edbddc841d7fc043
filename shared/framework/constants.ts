/** Page-delivery constants both sides read, so they never disagree (docs/architecture.md, "Constants"). */

/** From when the data was fetched. */
export const DYNAMIC_DATA_TTL_MS = 30_000

export const STATIC_DATA_TTL_MS = 300_000

export const MAX_PREFETCH_IN_FLIGHT = 5

/** Past this, a navigation becomes a full page load. */
export const ROUTE_LOAD_TIMEOUT_MS = 3_800

export const MAX_BREADCRUMBS = 100

/** `${DATA_PREFIX}${page path}${search}` */
export const DATA_PREFIX = '/_data'

export const ASSETS_PREFIX = '/assets/'

export const BOOTSTRAP_ELEMENT_ID = '__page_data'

export const MONITORING_ELEMENT_ID = '__monitoring'

export const ROOT_ELEMENT_ID = 'root'

/** The skip target, where focus goes after a navigation. */
export const MAIN_ELEMENT_ID = 'main'

/** Comma-separated ids of the layouts the browser has cached fresh: a dynamic page's answer leaves their data out. */
export const CACHED_LAYOUTS_HEADER = 'x-layouts-held'

/**
 * A request from another build is answered at once, before any loader runs, so what a
 * loader hands out once (a flash message) is still there for the document load that follows.
 */
export const BUILD_ID_HEADER = 'x-build-id'
