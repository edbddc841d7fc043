/** The application's /api routes: each module is a Fastify plugin registered under /api. */
import type { FastifyPluginAsync } from 'fastify'
import healthRoutes from './health.js'

export const apiRoutes: readonly FastifyPluginAsync[] = [healthRoutes]
