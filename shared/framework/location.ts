/**
 * One canonical form for a page's location, so every part that names a page agrees:
 * `/items/%31` and `/items/1`, `?q=a+b` and `?q=a%20b`, `%e5` and `%E5` share a key.
 * `%2F` in a segment stays (it is data, not a separator); empty and dot segments stay
 * too (the server redirects them away: `tidyPathname`); the `#hash` never reaches the
 * server, so it is never part of a key. A malformed path (`/99%`) has no canonical form:
 * the server refuses it with 400, and `pageKeyOf` keeps it raw so both sides agree.
 */

export interface CanonicalLocation {
  readonly pathname: string
  /** Without `?`; '' for none. */
  readonly search: string
  readonly pageKey: string
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

/** Needs no encoding (and has no `%`): already canonical. */
const PLAIN_PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/

/** Undefined when its percent-encoding is malformed. */
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

/** Never fails, as URLSearchParams never does. */
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

/** Undefined when the path is malformed. */
export function canonicalLocation(pathname: string, search: string): CanonicalLocation | undefined {
  const path = canonicalPathname(pathname)
  if (path === undefined) return undefined
  const query = canonicalSearch(search)
  return { pathname: path, search: query, pageKey: keyOf(path, query) }
}

/** The absolute form a client sends a server it takes for a proxy (`GET http://host/x`) loses its scheme and authority. */
export function originForm(target: string): string {
  if (target.startsWith('/')) return target
  const authority = /^https?:\/\/[^/?#]*/i.exec(target)
  if (!authority) return target
  // An empty path is `/` (RFC 3986, 6.2.3): `http://host?x=1` is `/?x=1`.
  const rest = target.slice(authority[0].length)
  return rest.startsWith('/') ? rest : `/${rest}`
}

export function targetAuthority(target: string): string | undefined {
  if (target.startsWith('/')) return undefined
  return /^https?:\/\/([^/?#]*)/i.exec(target)?.[1]
}

/** Drops the hash. */
export function splitTarget(target: string): { readonly pathname: string; readonly search: string } {
  const hash = target.indexOf('#')
  const rest = hash === -1 ? target : target.slice(0, hash)
  const q = rest.indexOf('?')
  return q === -1 ? { pathname: rest, search: '' } : { pathname: rest.slice(0, q), search: rest.slice(q) }
}

export function parseTarget(target: string): CanonicalLocation | undefined {
  const { pathname, search } = splitTarget(target)
  return canonicalLocation(pathname, search)
}

/** A malformed path keeps its raw form: both sides see the same bytes, so they still agree. */
export function pageKeyOf(pathname: string, search: string): string {
  return canonicalLocation(pathname, search)?.pageKey ?? keyOf(pathname, search.startsWith('?') ? search.slice(1) : search)
}

/**
 * Resolves `//`, a trailing slash, `.` and `..` as a browser would. The result starts
 * with exactly one `/` and an encoded segment, so it can never read as another host (`//host`, `/\host`).
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
