/**
 * Security headers on every answer, with @fastify/helmet: a CSP that allows scripts
 * only from this origin or carrying the response's nonce (`reply.cspNonce.script`,
 * fresh per response), no framing, no MIME sniffing, a strict referrer policy.
 * HSTS is sent when the request came over https, directly or through a trusted proxy.
 */
import helmet from '@fastify/helmet'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { CSP_DIRECTIVES, DEVELOPMENT_CSP_DIRECTIVES, REFERRER_POLICY, withStyleSources } from '../security-headers.js'

export interface SecurityPluginOptions {
  /** `npm run dev`: the CSP also lets Vite's client start its worker from a blob. */
  readonly development: boolean
  /** Inline content allowed by hash on every answer: the app's stylesheet (server/render/inline-style.ts). */
  readonly styleSources: readonly string[]
}

async function securityPlugin(fastify: FastifyInstance, opts: SecurityPluginOptions) {
  const directives = withStyleSources(opts.development ? DEVELOPMENT_CSP_DIRECTIVES : CSP_DIRECTIVES, opts.styleSources)
  await fastify.register(helmet, {
    enableCSPNonces: true,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: structuredClone(directives) as unknown as Record<string, string[]>,
    },
    // Set below, only where the client reached us over https.
    hsts: false,
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: REFERRER_POLICY },
  })
  // HSTS only over https: directly, or as a trusted proxy's X-Forwarded-Proto says.
  // Over plain http (local, tests) the header would be ignored at best.
  fastify.addHook('onRequest', async function applyStrictTransportSecurity(request, reply) {
    if (request.protocol === 'https') reply.header('strict-transport-security', 'max-age=31536000; includeSubDomains')
  })
}

export default fp(securityPlugin, { name: 'security' })
