/**
 * Development's Vite config (`npm run dev`); the production client build is also
 * Vite's, configured in scripts/build.ts without this file. @fastify/vite reads it: the client modules are
 * served from the project root (`/client/entry.tsx`), and the `ssr` environment's
 * input is what Vite's module runner loads for server-side rendering.
 */
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

const root = path.dirname(fileURLToPath(import.meta.url))

export default defineConfig({
  root,
  // Each checkout (and each test's copy of the project) keeps its own pre-bundled deps.
  cacheDir: path.join(root, '.cache/vite'),
  clearScreen: false,
  plugins: [react()],
  server: {
    // Same headers as production: no CORS answers that production would not give.
    cors: false,
    // Build output and test copies are never source (absolute: a test's copy of the
    // project lives under test/.build/ and must watch its own files).
    watch: { ignored: ['dist', 'test/.build', '.cache', '.tap'].map((dir) => path.join(root, dir, '**')) },
  },
  // Found up front, so the first page load does not discover a dependency and reload.
  optimizeDeps: { entries: ['client/entry.tsx', 'client/pages/*.tsx', 'client/monitoring/*.ts'] },
  environments: {
    ssr: { build: { rollupOptions: { input: { index: 'server/development/ssr-entry.ts' } } } },
  },
})
