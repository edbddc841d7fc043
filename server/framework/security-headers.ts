/**
 * The security policy every answer carries, in one place. helmet's defaults with our CSP, written out
 * once: computing them per request, as @fastify/helmet does, cost a tenth of a static page's answer.
 */
import type { OpenerPolicy } from './config.js'

/** Before the response's nonces, if it has any. */
export const CSP_DIRECTIVES = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  // Style attributes, as React writes them from `style={...}`: allowed, so a server-rendered
  // page shows what a client render shows (the browser cannot block the client's way,
  // CSSOM, at all). Not <style> elements: those stay by hash or nonce (decision 032).
  styleSrcAttr: ["'unsafe-inline'"],
  imgSrc: ["'self'", 'data:'],
  fontSrc: ["'self'"],
  connectSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
} as const satisfies Record<string, readonly string[]>

/** Vite's client learns the server is back after a restart from a SharedWorker made from a blob. */
export const DEVELOPMENT_CSP_DIRECTIVES = {
  ...CSP_DIRECTIVES,
  workerSrc: ["'self'", 'blob:'],
} as const satisfies Record<string, readonly string[]>

const REFERRER_POLICY = 'strict-origin-when-cross-origin'

export function cspHeader(directives: Readonly<Record<string, readonly string[]>>): string {
  return Object.entries(directives)
    .map(([name, values]) => `${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} ${values.join(' ')}`)
    .join(';')
}

const FIXED_HEADERS: Readonly<Record<string, string>> = {
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': REFERRER_POLICY,
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'DENY',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
}

/**
 * No opener policy by default: `same-origin` costs a page opened in a new tab about 40 ms of first
 * paint (docs/decisions/017-first-paint.md says when to turn it on).
 */
export function securityHeaders(openerPolicy: OpenerPolicy | undefined): Readonly<Record<string, string>> {
  return openerPolicy ? { 'cross-origin-opener-policy': openerPolicy, ...FIXED_HEADERS } : FIXED_HEADERS
}

/** Sent only when the client reached us over https. */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000; includeSubDomains'

/** Whatever the configuration: a page may not set any of them itself (server/framework/response-control.ts). */
export const SECURITY_HEADER_NAMES: readonly string[] = [
  'content-security-policy',
  'cross-origin-opener-policy',
  'strict-transport-security',
  ...Object.keys(FIXED_HEADERS),
]

/** For refusals, some written before Fastify's hooks; a test keeps the names the same as a page answer's. */
export function scriptlessSecurityHeaders(openerPolicy: OpenerPolicy | undefined): Readonly<Record<string, string>> {
  return { 'content-security-policy': cspHeader({ ...CSP_DIRECTIVES, scriptSrc: ["'none'"] }), ...securityHeaders(openerPolicy) }
}

export function withStyleSources<D extends Readonly<Record<string, readonly string[]>> & { styleSrc: readonly string[] }>(
  directives: D,
  styleSources: readonly string[],
): D {
  return { ...directives, styleSrc: [...directives.styleSrc, ...styleSources] }
}
