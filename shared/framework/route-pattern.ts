/** A route's pattern compiled once to a RegExp and its param names. */
import type { AnyRoute } from './route-table.js'

export interface CompiledRoute {
  readonly id: string
  readonly route: AnyRoute
  readonly regexp: RegExp
  readonly keys: readonly string[]
}

const SEGMENT_PARAM = /^:([A-Za-z_][A-Za-z0-9_]*)$/

export function compile(id: string, route: AnyRoute): CompiledRoute {
  if (!route.pattern.startsWith('/')) {
    throw new Error(`Route "${id}": pattern "${route.pattern}" must start with "/"`)
  }
  const keys: string[] = []
  const source = route.pattern
    .split('/')
    .slice(1)
    .map((segment) => {
      const param = SEGMENT_PARAM.exec(segment)
      if (param) {
        keys.push(param[1]!)
        return '/([^/]+)'
      }
      if (segment.includes(':')) {
        throw new Error(`Route "${id}": segment "${segment}" is not a valid param name`)
      }
      return '/' + segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    })
    .join('')
  return { id, route, keys, regexp: new RegExp(`^${source === '/' ? '/' : source}$`) }
}

export function decodeParam(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw)
  } catch {
    return undefined // malformed percent-encoding: no match, so a 404, never a crash
  }
}
