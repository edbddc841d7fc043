/**
 * Security headers on every answer, with @fastify/helmet: a CSP that allows scripts
 * only from this origin or carrying the response's nonce (`reply.cspNonce.script`,
 * fresh per response), no framing, no MIME sniffing, a strict referrer policy.
 * HSTS is left to the https-aware proxy setup (DESIGN §9), since this process may be
 * reached over plain http behind a terminating proxy.
 */
import helmet from '@fastify/helmet'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

async function securityPlugin(fastify: FastifyInstance) {
  await fastify.register(helmet, {
    enableCSPNonces: true,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
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
      },
    },
    hsts: false,
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
  })
}

export default fp(securityPlugin, { name: 'security' })
