/**
 * Which Host names this server answers, against DNS rebinding: a page reached under a name an attacker
 * controls runs the attacker's scripts with our answers, and its forms carry a matching Origin.
 * ALLOWED_HOSTS unset: loopback names on a loopback address, else every name with a warning.
 */

export type HostPattern =
  | { readonly kind: 'any' }
  | {
      readonly kind: 'name'
      /** Lower case, no trailing dot; IPv6 in brackets. */
      readonly hostname: string
      readonly subdomains: boolean
      /** Any when undefined. */
      readonly port: string | undefined
    }

export interface HostName {
  readonly hostname: string
  readonly port: string | undefined
}

const LABEL = '[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?'
const HOST = new RegExp(`^(\\[[0-9a-f:.]+\\]|${LABEL}(?:\\.${LABEL})*)\\.?(?::(\\d{1,5}))?$`, 'i')

export function parseHostName(value: string): HostName | undefined {
  const match = HOST.exec(value)
  // A port is 0 to 65535: `:99999` names no port, so no host either.
  if (!match || (match[2] !== undefined && Number(match[2]) > 65_535)) return undefined
  return { hostname: match[1]!.toLowerCase(), port: match[2] }
}

export function parseHostPattern(entry: string): HostPattern | undefined {
  if (entry === '*') return { kind: 'any' }
  const subdomains = entry.startsWith('.')
  const name = parseHostName(subdomains ? entry.slice(1) : entry)
  if (!name || (subdomains && name.hostname.startsWith('['))) return undefined
  return { kind: 'name', hostname: name.hostname, subdomains, port: name.port }
}

/** Browsers name no port for the scheme's own: `app.example.com:443` is `Host: app.example.com` over https. */
function matches(pattern: HostPattern, host: HostName, defaultPort: string): boolean {
  if (pattern.kind === 'any') return true
  if (pattern.port !== undefined && pattern.port !== (host.port ?? defaultPort)) return false
  if (host.hostname === pattern.hostname) return true
  return pattern.subdomains && host.hostname.endsWith(`.${pattern.hostname}`)
}

const LOOPBACK_NAMES: readonly HostPattern[] = ['localhost', '127.0.0.1', '[::1]'].map((name) => parseHostPattern(name)!)

export function isLoopbackAddress(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase()
  return bare === 'localhost' || bare === '::1' || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare)
}

export type HostVerdict = 'allowed' | 'malformed' | 'refused'

export interface HostPolicy {
  /** `https` says which port a host without one means. */
  check(host: string | undefined, https?: boolean): HostVerdict
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
