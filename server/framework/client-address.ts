/**
 * The key a client address is counted under for rate limits. A port some proxies add would buy a
 * new budget per connection, so it goes; IPv6 counts per /64, as one client usually holds a whole one.
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
