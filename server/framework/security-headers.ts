/**
 * The security policy every answer carries, in one place: the security plugin sets it
 * on every answer (adding a fresh script and style nonce to the CSP of an answer that
 * asks for one), and the answers sent outside Fastify's hooks (a request Fastify refused
 * before routing, a header block Node refused) carry `scriptlessSecurityHeaders`, for
 * a page without any script. The header set is helmet's defaults with our CSP (the opener
 * policy a setting), written out once: computing them per request (as @fastify/helmet
 * does) cost a tenth of a static page's answer.
 */
import type { OpenerPolicy } from './config.js'

/** The CSP of every answer, before the response's nonces (if it has any) are added. */
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

/**
 * `npm run dev` only: what Vite's client needs besides. It learns that the server is
 * back after a restart from a SharedWorker it creates from a blob, and reloads the
 * page then; nothing else is added (its websocket is same-origin: `'self'`).
 */
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

/**
 * Every security header but the CSP and the opener policy: the same on every answer.
 */
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
 * Every security header but the CSP, with `Cross-Origin-Opener-Policy` when the
 * operator chose one (CROSS_ORIGIN_OPENER_POLICY). None by default: `same-origin`
 * puts a page opened from a new tab in a new renderer process, about 40 ms of its first
 * paint (docs/decisions/017-first-paint.md says when to turn it on).
 */
export function securityHeaders(openerPolicy: OpenerPolicy | undefined): Readonly<Record<string, string>> {
  return openerPolicy ? { 'cross-origin-opener-policy': openerPolicy, ...FIXED_HEADERS } : FIXED_HEADERS
}

/** HSTS, sent only when the client reached us over https (server/framework/plugins/security.ts). */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000; includeSubDomains'

/**
 * Every header name the security policy may set, whatever the configuration: a page may
 * not set any of them itself (server/framework/response-control.ts).
 */
export const SECURITY_HEADER_NAMES: readonly string[] = [
  'content-security-policy',
  'cross-origin-opener-policy',
  'strict-transport-security',
  ...Object.keys(FIXED_HEADERS),
]

/**
 * The security headers for an answer with no script at all (so no nonce:
 * `script-src 'none'`): refusals, some written before Fastify's hooks. A test compares
 * the names with a page answer's, so the two cannot drift apart.
 */
export function scriptlessSecurityHeaders(openerPolicy: OpenerPolicy | undefined): Readonly<Record<string, string>> {
  return { 'content-security-policy': cspHeader({ ...CSP_DIRECTIVES, scriptSrc: ["'none'"] }), ...securityHeaders(openerPolicy) }
}

/** The directives with the inline stylesheet's hash (server/framework/render/inline-style.ts) allowed. */
export function withStyleSources<D extends Readonly<Record<string, readonly string[]>> & { styleSrc: readonly string[] }>(
  directives: D,
  styleSources: readonly string[],
): D {
  return { ...directives, styleSrc: [...directives.styleSrc, ...styleSources] }
}
