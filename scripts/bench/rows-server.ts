/**
 * The scaling fixture, for `npm run bench` only (never a product route): the production
 * app, built from dist/client, whose /items/:id page has `?rows=N` rows (1 to 10,000)
 * of the same shape as the real page's 200. Spawned with NODE_ENV=production; prints
 * its origin.
 */
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildApp } from '../../server/framework/app.js'
import { loadConfig } from '../../server/framework/config.js'
import { defineServerPage } from '../../server/framework/page-definition.js'
import { application } from '../../server/application.js'
import type { ItemRow } from '../../shared/routes.js'
import { routes } from '../../shared/routes.js'

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

const items = defineServerPage(routes.items, {
  loader: ({ params, searchParams }) => {
    const id = Number(params.id)
    const count = Math.min(Math.max(Number(searchParams.get('rows')) || 200, 1), 10_000)
    const rows: ItemRow[] = []
    for (let n = 0; n < count; n++) rows.push({ n, name: `row-${id}-${n}`, price: ((n * 37 + id) % 1000) / 10, tags: [`a${n % 5}`, `b${n % 7}`] })
    return { id, title: `Item list ${id}`, rows }
  },
})

const config = loadConfig({
  ...process.env,
  CLIENT_DIR: path.join(projectRoot, 'dist/client'),
  LOG_LEVEL: 'warn',
  RATE_LIMIT_FORMS: 'off',
  RATE_LIMIT_MONITORING: 'off',
})
const { definition: appDefinition } = application
const definition: typeof appDefinition = { ...appDefinition, serverPages: { ...appDefinition.serverPages, items } }
const app = buildApp({ ...config, host: '127.0.0.1', port: 0 }, { application: { ...application, definition } })
console.log(await app.listen({ host: '127.0.0.1', port: 0 }))
