/**
 * Security headers on every response (values in ../security-headers.ts). The nonces are
 * drawn only for a response that reads `reply.cspNonce`: an asset, a cached static page or
 * JSON needs none, and its CSP is the same fixed string.
 */
import { randomFillSync } from 'node:crypto'
import type { FastifyInstance, FastifyReply } from 'fastify'
import fp from 'fastify-plugin'
import type { OpenerPolicy } from '../config.js'
import {
  CSP_DIRECTIVES,
  cspHeader,
  DEVELOPMENT_CSP_DIRECTIVES,
  securityHeaders,
  STRICT_TRANSPORT_SECURITY,
  withStyleSources,
} from '../security-headers.js'
import { isHttps } from '../request-scheme.js'

declare module 'fastify' {
  interface FastifyReply {
    /** Fresh per response; reading them puts them into its CSP. */
    readonly cspNonce: CspNonce
  }
}

export interface CspNonce {
  readonly script: string
  readonly style: string
}

export interface SecurityPluginOptions {
  /** The CSP also lets Vite's client start its worker from a blob. */
  readonly development: boolean
  /** Allowed by hash: the app's inline stylesheet. */
  readonly styleSources: readonly string[]
  readonly openerPolicy: OpenerPolicy | undefined
}

const NONCES = Symbol('cspNonces')

/**
 * Drawn a few kilobytes at a time, each byte handed out once: one call into the system's
 * generator per 128 responses (a few microseconds each under load), as `randomUUID` does.
 */
const NONCE_BYTES = 32
const pool = Buffer.alloc(NONCE_BYTES * 128)
let poolOffset = pool.length

function freshNonceHex(): string {
  if (poolOffset === pool.length) {
    randomFillSync(pool)
    poolOffset = 0
  }
  const hex = pool.toString('hex', poolOffset, poolOffset + NONCE_BYTES)
  poolOffset += NONCE_BYTES
  return hex
}
type WithNonces = FastifyReply & { [NONCES]?: CspNonce }

async function securityPlugin(fastify: FastifyInstance, opts: SecurityPluginOptions) {
  const directives = withStyleSources(opts.development ? DEVELOPMENT_CSP_DIRECTIVES : CSP_DIRECTIVES, opts.styleSources)
  const policy = cspHeader(directives)
  const headers = securityHeaders(opts.openerPolicy)
  // Written once around two gaps: per response, only the nonces are joined in.
  const GAP = '\u0000'
  const [beforeScript, betweenNonces, afterStyle] = cspHeader({
    ...directives,
    scriptSrc: [...directives.scriptSrc, `'nonce-${GAP}'`],
    styleSrc: [...directives.styleSrc, `'nonce-${GAP}'`],
  }).split(GAP) as [string, string, string]
  const policyWith = (nonce: CspNonce) => beforeScript + nonce.script + betweenNonces + nonce.style + afterStyle

  fastify.decorateReply('cspNonce', {
    getter(this: WithNonces): CspNonce {
      let nonce = this[NONCES]
      if (!nonce) {
        const bytes = freshNonceHex()
        nonce = { script: bytes.slice(0, 32), style: bytes.slice(32) }
        this[NONCES] = nonce
        this.header('content-security-policy', policyWith(nonce))
      }
      return nonce
    },
  })
  fastify.addHook('onRequest', function applySecurityHeaders(request, reply, done) {
    reply.headers(headers).header('content-security-policy', policy)
    // Over plain http (local, tests) HSTS would be ignored at best.
    if (isHttps(request)) reply.header('strict-transport-security', STRICT_TRANSPORT_SECURITY)
    done()
  })
}

export default fp(securityPlugin, { name: 'security' })
