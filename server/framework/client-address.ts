/**
 * The key a client address is counted under (rate limits): the address a trusted proxy
 * reports may carry a port (`203.0.113.5:41234`, `[2001:db8::1]:443`: some load
 * balancers write it so), which changes with every connection and would buy a new
 * budget each time; it is dropped. IPv6 counts per /64 (one client usually holds a
 * whole one), an IPv4-mapped IPv6 address as its IPv4 address, anything else (a value
 * that is no address) as it was sent, in lower case.
 */
import { isIPv4, isIPv6 } from 'node:net'

export function clientAddressKey(reported: string): string {
  const address = withoutPort(reported.trim())
  if (isIPv4(address)) return address
  if (!isIPv6(address)) return address.toLowerCase()
  const groups = ipv6Groups(address.replace(/%.*$/u, ''))
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.')
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`
}

/** `a.b.c.d:port` -> `a.b.c.d`, `[v6]:port` and `[v6]` -> `v6`; anything else unchanged. */
export function withoutPort(address: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/u.exec(address)
  if (bracketed) return bracketed[1]!
  const colon = address.indexOf(':')
  if (colon !== -1 && colon === address.lastIndexOf(':') && isIPv4(address.slice(0, colon))) return address.slice(0, colon)
  return address
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail read as two groups). */
function ipv6Groups(address: string): number[] {
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/u.exec(address)
  let text = address
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number]
    text = `${address.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, tail] = text.split('::') as [string, string | undefined]
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)))
  const front = parse(head)
  if (tail === undefined) return front
  const back = parse(tail)
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back]
}
