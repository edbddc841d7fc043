/**
 * Security headers on every answer: a CSP that allows scripts only from this origin or
 * carrying the response's nonce, no framing, no MIME sniffing, a strict referrer
 * policy (server/framework/security-headers.ts has the values). HSTS is sent when the request
 * came over https, directly or through a trusted proxy.
 *
 * The nonces are drawn only for an answer that uses one (`reply.cspNonce`, read by a
 * page with an inline script): an asset, a cached static page or a JSON answer needs
 * none, and its CSP is the same fixed string.
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
    /** This answer's CSP nonces, fresh per answer; reading them puts them into its CSP. */
    readonly cspNonce: CspNonce
  }
}

export interface CspNonce {
  readonly script: string
  readonly style: string
}

export interface SecurityPluginOptions {
  /** `npm run dev`: the CSP also lets Vite's client start its worker from a blob. */
  readonly development: boolean
  /** Inline content allowed by hash on every answer: the app's stylesheet (server/framework/render/inline-style.ts). */
  readonly styleSources: readonly string[]
  /** CROSS_ORIGIN_OPENER_POLICY; none sent when undefined. */
  readonly openerPolicy: OpenerPolicy | undefined
}

const NONCES = Symbol('cspNonces')

/**
 * Random bytes drawn a few kilobytes at a time and each handed out once: one call into
 * the system's generator per 128 answers instead of one per answer (a few microseconds
 * each under load). Node's `randomUUID` keeps its entropy the same way.
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
  // The policy with nonces, written once around two gaps: per answer, only the nonces are joined in.
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
    // HSTS only over https: directly, or as a trusted proxy's X-Forwarded-Proto says.
    // Over plain http (local, tests) the header would be ignored at best.
    if (isHttps(request)) reply.header('strict-transport-security', STRICT_TRANSPORT_SECURITY)
    done()
  })
}

export default fp(securityPlugin, { name: 'security' })
