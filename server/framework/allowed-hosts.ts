/**
 * Which Host names this server answers (the DNS-rebinding and host-header defence of
 * Django's ALLOWED_HOSTS and Vite's `server.allowedHosts`). A page reached under a
 * name an attacker controls runs the attacker's scripts with this server's answers,
 * and a form posted there carries a matching Origin, so the same-origin check alone
 * cannot tell.
 *
 * - `ALLOWED_HOSTS` set: only those names (`app.example.com`; `.example.com` for it
 *   and its subdomains; `:port` to pin a port, which a Host without a port meets when
 *   it is the scheme's own, 443 or 80; `*` for any).
 * - unset, listening on a loopback address (the default): only `localhost`,
 *   `127.0.0.1` and `[::1]`, on any port.
 * - unset on another address: every name, and a warning at start.
 * A request without Host (HTTP/1.0) names no host to be misdirected to and is answered.
 */

/** One entry of ALLOWED_HOSTS. */
export type HostPattern =
  | { readonly kind: 'any' }
  | {
      readonly kind: 'name'
      /** Lower case, no trailing dot; IPv6 in brackets. */
      readonly hostname: string
      /** `.example.com`: the name and every subdomain of it. */
      readonly subdomains: boolean
      /** Only this port; any when undefined. */
      readonly port: string | undefined
    }

/** What a Host header (or a trusted proxy's X-Forwarded-Host) names. */
export interface HostName {
  readonly hostname: string
  readonly port: string | undefined
}

const LABEL = '[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?'
const HOST = new RegExp(`^(\\[[0-9a-f:.]+\\]|${LABEL}(?:\\.${LABEL})*)\\.?(?::(\\d{1,5}))?$`, 'i')

/** A Host header's value split into name and port; undefined when it is not a host. */
export function parseHostName(value: string): HostName | undefined {
  const match = HOST.exec(value)
  // A port is 0 to 65535: `:99999` names no port, so no host either.
  if (!match || (match[2] !== undefined && Number(match[2]) > 65_535)) return undefined
  return { hostname: match[1]!.toLowerCase(), port: match[2] }
}

/** One ALLOWED_HOSTS entry; undefined when it is not one. */
export function parseHostPattern(entry: string): HostPattern | undefined {
  if (entry === '*') return { kind: 'any' }
  const subdomains = entry.startsWith('.')
  const name = parseHostName(subdomains ? entry.slice(1) : entry)
  if (!name || (subdomains && name.hostname.startsWith('['))) return undefined
  return { kind: 'name', hostname: name.hostname, subdomains, port: name.port }
}

/**
 * A pinned port matches the port a host names, or, when it names none (as browsers do
 * for the scheme's own port), the scheme's default: `app.example.com:443` is
 * `Host: app.example.com` over https.
 */
function matches(pattern: HostPattern, host: HostName, defaultPort: string): boolean {
  if (pattern.kind === 'any') return true
  if (pattern.port !== undefined && pattern.port !== (host.port ?? defaultPort)) return false
  if (host.hostname === pattern.hostname) return true
  return pattern.subdomains && host.hostname.endsWith(`.${pattern.hostname}`)
}

const LOOPBACK_NAMES: readonly HostPattern[] = ['localhost', '127.0.0.1', '[::1]'].map((name) => parseHostPattern(name)!)

/** True for an address that only this machine can reach. */
export function isLoopbackAddress(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase()
  return bare === 'localhost' || bare === '::1' || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare)
}

export type HostVerdict = 'allowed' | 'malformed' | 'refused'

export interface HostPolicy {
  /**
   * The verdict on the host a request names (undefined: it named none), reached over
   * https or not (which port a host without one means).
   */
  check(host: string | undefined, https?: boolean): HostVerdict
  /** Said once at start when every host is answered without the operator having chosen so. */
  readonly warning: string | undefined
}

export function hostPolicy(listenHost: string, allowedHosts: readonly HostPattern[] | undefined): HostPolicy {
  const implicitAny = allowedHosts === undefined && !isLoopbackAddress(listenHost)
  const patterns = allowedHosts ?? (implicitAny ? [{ kind: 'any' as const }] : LOOPBACK_NAMES)
  const anyHost = patterns.some((pattern) => pattern.kind === 'any')
  function verdictOn(host: string, https: boolean): HostVerdict {
    const name = parseHostName(host)
    if (!name) return 'malformed'
    if (anyHost) return 'allowed'
    const defaultPort = https ? '443' : '80'
    return patterns.some((pattern) => matches(pattern, name, defaultPort)) ? 'allowed' : 'refused'
  }
  // Nearly every request names the same host as the one before: decide that once.
  let last: { host: string; https: boolean; verdict: HostVerdict } = { host: '', https: false, verdict: verdictOn('', false) }
  return {
    check(host, https = false) {
      if (host === undefined) return 'allowed'
      if (host !== last.host || https !== last.https) last = { host, https, verdict: verdictOn(host, https) }
      return last.verdict
    },
    warning: implicitAny
      ? `ALLOWED_HOSTS is unset and HOST is ${listenHost}: requests for any host name are answered. ` +
        'Set ALLOWED_HOSTS to the names this site is reached by, to refuse DNS rebinding and forged Host headers.'
      : undefined,
  }
}
