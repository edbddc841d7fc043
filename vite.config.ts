/**
 * Development's Vite config (`npm run dev`); the production client build is also
 * Vite's, configured in scripts/build.ts without this file. @fastify/vite reads it: the client modules are
 * served from the project root (`/client/entry.tsx`). The module runner's entry for
 * server-side rendering is named by server/framework/development/, which loads it only
 * for the requests that render a page.
 */
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import react from '@vitejs/plugin-react'
import { defineConfig, type Plugin } from 'vite'
import { LAST_EDIT_EVENT, LAST_EDIT_REQUEST, SOURCE_CHANGED_EVENT } from './server/framework/error-documents.js'

const root = path.dirname(fileURLToPath(import.meta.url))
const cacheDir = path.join(root, '.cache/vite')

/** Every node_modules folder Node would look in from the project (a test's copy uses the checkout's). */
function nodeModulesFolders(from: string): string[] {
  const parent = path.dirname(from)
  return [path.join(from, 'node_modules'), ...(parent === from ? [] : nodeModulesFolders(parent))]
}

/**
 * shared/ is the server's code as much as the browser's: scripts/dev.ts restarts the
 * server on its edits, and Vite's client reloads the tab once the new server answers.
 * Vite's own reload for the edit would reach the server being stopped (a page whose
 * modules never load) or none at all.
 */
function sharedEditsRestart(): Plugin {
  const shared = path.join(root, 'shared') + path.sep
  return {
    name: 'shared-edits-restart-the-server',
    hotUpdate({ file }) {
      if (path.normalize(file).startsWith(shared)) return []
    },
  }
}

/**
 * A development error page (a page whose modules could not be loaded, a render that
 * failed) reloads after the next edit of client/, the one folder Vite updates without a
 * restart: the edit may be the fix, and the files it touches need not be modules the
 * error page loaded, so Vite's own updates would not reach it. Sent once the server's
 * module graph has dropped the edited file, so the reload renders the edit.
 */
function errorPagesReloadOnClientEdits(): Plugin {
  const client = path.join(root, 'client') + path.sep
  let lastEdit = 0
  return {
    name: 'error-pages-reload-on-client-edits',
    configureServer(server) {
      // An error page that connected after the edit missed its event: it asks.
      server.environments.client.hot.on(LAST_EDIT_REQUEST, (_data, page) => page.send(LAST_EDIT_EVENT, { at: lastEdit }))
    },
    hotUpdate({ file, server }) {
      if (this.environment.name === 'ssr' && path.normalize(file).startsWith(client)) {
        lastEdit = Date.now()
        server.environments.client.hot.send(SOURCE_CHANGED_EVENT)
      }
    },
  }
}

export default defineConfig({
  root,
  // Each checkout (and each test's copy of the project) keeps its own pre-bundled deps.
  cacheDir,
  clearScreen: false,
  // The app reads its configuration from the process's environment, never from .env:
  // Vite would only restart itself on an edit of one.
  envDir: false,
  // The pre-bundled dependencies (in cacheDir, outside node_modules) are not ours to refresh.
  plugins: [react({ exclude: [/\/node_modules\//, /\/\.cache\/vite\//] }), sharedEditsRestart(), errorPagesReloadOnClientEdits()],
  server: {
    // The app checks Host itself (ALLOWED_HOSTS) before Vite sees a request; Vite's own
    // list would refuse the names the app was told to answer.
    allowedHosts: true,
    // Same headers as production: no CORS answers that production would not give.
    cors: false,
    // Only what the browser loads, by path or by /@fs/: the app hands Vite no other
    // request (server/framework/development/vite-requests.ts reads this list), and Vite
    // refuses other files even in a request it gets (`?raw`, `?url`, `?inline`).
    fs: { strict: true, allow: [path.join(root, 'client'), path.join(root, 'shared'), cacheDir, ...nodeModulesFolders(root)] },
    // Build output and test copies are never source (absolute: a test's copy of the
    // project lives under test/.build/ and must watch its own files).
    watch: { ignored: ['dist', 'test/.build', '.cache', '.tap'].map((dir) => path.join(root, dir, '**')) },
  },
  // Found up front, so the first page load does not discover a dependency and reload.
  optimizeDeps: { entries: ['client/entry.tsx', 'client/pages/*.tsx', 'client/framework/monitoring/*.ts'] },
})
