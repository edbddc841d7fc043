/**
 * The security policy every answer carries, in one place: the security plugin gives it
 * to helmet (which adds a fresh script and style nonce per response), and the answers
 * sent outside Fastify's hooks (a request Fastify refused before routing, a header
 * block Node refused) carry the fixed form below, for a page without any script.
 */

/** The CSP of every answer, before helmet adds the response's nonces. */
export const CSP_DIRECTIVES = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
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

export const REFERRER_POLICY = 'strict-origin-when-cross-origin'

function cspHeader(directives: Readonly<Record<string, readonly string[]>>): string {
  return Object.entries(directives)
    .map(([name, values]) => `${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} ${values.join(' ')}`)
    .join(';')
}

/**
 * The headers helmet sets with the options of the security plugin, for an answer with
 * no script at all (so no nonce: `script-src 'none'`). A test compares the names with
 * a page answer's, so the two cannot drift apart.
 */
export const SCRIPTLESS_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': cspHeader({ ...CSP_DIRECTIVES, scriptSrc: ["'none'"] }),
  'cross-origin-opener-policy': 'same-origin',
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

/** The directives with the inline stylesheet's hash (server/render/inline-style.ts) allowed. */
export function withStyleSources<D extends Readonly<Record<string, readonly string[]>> & { styleSrc: readonly string[] }>(
  directives: D,
  styleSources: readonly string[],
): D {
  return { ...directives, styleSrc: [...directives.styleSrc, ...styleSources] }
}

/**
 * The CSP of a static page, sent to everyone as the same bytes: no nonce (it has no
 * inline script, its scripts come from this origin, which `'self'` allows, and its
 * inline stylesheet is allowed by its hash).
 */
export function staticPageCsp(styleSources: readonly string[]): string {
  return cspHeader(withStyleSources(CSP_DIRECTIVES, styleSources))
}
