/**
 * One canonical form for a page's location, used by every part that names a page:
 * the server's render and page-data endpoint, the browser's page cache, prefetch
 * queue, navigation and page host. Two URLs that show the same page have the same
 * key, however they were encoded: `/items/%31` and `/items/1`; `?q=a+b`, `?q=a%20b`
 * and `?q=a b`; `%e5` and `%E5`; the browser's `location` and the HTTP request line.
 *
 * - Path: each segment is percent-decoded, then encoded again the one way this module
 *   does it (RFC 3986's pchar set left as is, everything else `%XX` in upper case, so
 *   non-ASCII is UTF-8 percent-encoded). `%2F` inside a segment stays `%2F`: it is
 *   data, not a separator. Slashes, empty and dot segments are kept as they came:
 *   they change which page a path names, and the server redirects them away
 *   (`tidyPathname`).
 * - Query: read as the page's loader reads it (URLSearchParams: `+` is a space, empty
 *   pairs dropped, order and repeated keys kept), written back with every name and
 *   value component-encoded. A query that is only `?` is no query.
 * - The `#hash` is never part of a key: it does not reach the server.
 *
 * A path whose percent-encoding is malformed (`%E0%A4%A`, `/99%`) has no canonical
 * form; the server refuses it with 400 before routing, and `locationKey` returns such
 * a location as it came, so both sides still agree on a key for its error page.
 */

/** A page location in canonical form. */
export interface CanonicalLocation {
  /** Starts with `/`; every segment encoded the canonical way. */
  readonly pathname: string
  /** The query without `?`, canonically encoded; '' for none. */
  readonly search: string
  /** What names the page: `pathname`, then `?search` when there is one. */
  readonly key: string
}

/** The pchar characters RFC 3986 allows unencoded in a segment that encodeURIComponent encodes anyway. */
const PATH_SAFE = /%(?:3A|40|24|26|2B|2C|3B|3D)/g

function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(PATH_SAFE, decodeURIComponent)
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}

/** A path made only of characters that need no encoding (and no `%`): already canonical. */
const PLAIN_PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/

/** The canonical form of a raw pathname, or undefined when its percent-encoding is malformed. */
export function canonicalPathname(pathname: string): string | undefined {
  if (PLAIN_PATH.test(pathname)) return pathname
  if (!pathname.startsWith('/')) return undefined
  const segments = pathname.split('/')
  for (let i = 1; i < segments.length; i++) {
    const decoded = decodeSegment(segments[i]!)
    if (decoded === undefined) return undefined
    segments[i] = encodeSegment(decoded)
  }
  return segments.join('/')
}

/** The canonical form of a query (with or without its `?`): never fails, as URLSearchParams never does. */
export function canonicalSearch(search: string): string {
  if (search === '' || search === '?') return ''
  const pairs: string[] = []
  for (const [name, value] of new URLSearchParams(search)) {
    pairs.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
  }
  return pairs.join('&')
}

function keyOf(pathname: string, search: string): string {
  return search ? `${pathname}?${search}` : pathname
}

/**
 * The canonical location of a raw pathname and query (`location.pathname` and
 * `location.search`, or the two halves of a request target); undefined when the path
 * is malformed.
 */
export function canonicalLocation(pathname: string, search: string): CanonicalLocation | undefined {
  const path = canonicalPathname(pathname)
  if (path === undefined) return undefined
  const query = canonicalSearch(search)
  return { pathname: path, search: query, key: keyOf(path, query) }
}

/**
 * A request target in origin form (`/x?y`): the absolute form a client may send to a
 * server it takes for a proxy (`GET http://host/x`) loses its scheme and authority.
 */
export function originForm(target: string): string {
  if (target.startsWith('/')) return target
  const authority = /^https?:\/\/[^/?#]*/i.exec(target)
  if (!authority) return target
  // An empty path is `/` (RFC 3986, 6.2.3): `http://host?x=1` is `/?x=1`.
  const rest = target.slice(authority[0].length)
  return rest.startsWith('/') ? rest : `/${rest}`
}

/**
 * The authority of an absolute-form request target (`localhost:3000` of
 * `GET http://localhost:3000/x`); undefined for any other form.
 */
export function targetAuthority(target: string): string | undefined {
  if (target.startsWith('/')) return undefined
  return /^https?:\/\/([^/?#]*)/i.exec(target)?.[1]
}

/** Splits a request target or path-relative URL (`/a/b?x=1#top`) into its pathname and query (`?x=1`), dropping the hash. */
export function splitTarget(target: string): { readonly pathname: string; readonly search: string } {
  const hash = target.indexOf('#')
  const rest = hash === -1 ? target : target.slice(0, hash)
  const q = rest.indexOf('?')
  return q === -1 ? { pathname: rest, search: '' } : { pathname: rest.slice(0, q), search: rest.slice(q) }
}

/** The canonical location of a request target (`/items/7?x=1`); undefined when malformed. */
export function parseTarget(target: string): CanonicalLocation | undefined {
  const { pathname, search } = splitTarget(target)
  return canonicalLocation(pathname, search)
}

/**
 * The key of the page at a raw pathname and query. A malformed path keeps its raw
 * form (both sides see the same bytes, so they still agree).
 */
export function locationKey(pathname: string, search: string): string {
  return canonicalLocation(pathname, search)?.key ?? keyOf(pathname, search.startsWith('?') ? search.slice(1) : search)
}

/**
 * The path a canonical pathname should be served at: no empty segments (`//`), no
 * trailing slash, `.` and `..` resolved (as a browser would). Equal to its input when
 * that is already tidy. The result starts with exactly one `/`, followed by an encoded
 * segment or nothing, so it can never be read as another host (`//host`, `/\host`).
 */
export function tidyPathname(pathname: string): string {
  const out: string[] = []
  for (const segment of pathname.split('/')) {
    if (segment === '' || segment === '.') continue
    if (segment === '..') out.pop()
    else out.push(segment)
  }
  return '/' + out.join('/')
}
