/**
 * The import rules (eslint.config.js, scripts/lint/import-boundaries.js,
 * docs/decisions/024-lint-and-format.md): for each, an import it refuses, with the
 * message that names the rule and its reason, and an import it lets through. The code is
 * linted as if it were the named file, with the project's own configuration.
 */
import path from 'node:path'
import { ESLint } from 'eslint'
import t, { type Test } from 'tap'
import { projectRoot } from '../helpers/build.js'

const eslint = new ESLint({ cwd: projectRoot, ruleFilter: ({ ruleId }) => ruleId.startsWith('imports/') })

/** What the import rules say about `code` in the file at `file` (relative to the project). */
async function lint(file: string, code: string): Promise<Array<{ ruleId: string | null; message: string }>> {
  const [result] = await eslint.lintText(code, { filePath: path.join(projectRoot, file) })
  return result!.messages.map(({ ruleId, message }) => ({ ruleId, message }))
}

/** The one message `code` in `file` gets: from `rule`, naming `target` and saying why. */
async function refused(t: Test, file: string, code: string, rule: string, target: string, why: RegExp) {
  const messages = await lint(file, code)
  t.equal(messages.length, 1, `${file}: one message`)
  t.equal(messages[0]?.ruleId, `imports/${rule}`, `${file}: from ${rule}`)
  t.match(messages[0]?.message, `imports/${rule}: this file may not import ${target}.`, `${file}: names the rule and ${target}`)
  t.match(messages[0]?.message, why, `${file}: says why`)
}

async function allowed(t: Test, file: string, code: string) {
  t.same(await lint(file, code), [], `${file}: ${code.trim().split('\n')[0]} is allowed`)
}

t.test('(a) shared/ imports nothing from client/ or server/', async (t) => {
  const why = /runs in the browser and on the server alike/
  await refused(
    t,
    'shared/routes.ts',
    "import { clientApp } from '../client/application.js'\nexport { clientApp }\n",
    'shared-runs-on-both-sides',
    'client/application',
    why,
  )
  await refused(
    t,
    'shared/framework/head.ts',
    "export type { RequestSession } from '../../server/framework/session.js'\n",
    'shared-runs-on-both-sides',
    'server/framework/session',
    why,
  )
  await allowed(t, 'shared/routes.ts', "export { createRouter } from './framework/index.js'\n")
  await allowed(t, 'shared/framework/head.ts', "export { HttpError } from './errors.js'\n")
})

t.test("(a, e) shared/framework/ imports nothing of the product's shared files", async (t) => {
  const why = /The framework does not know the product/
  await refused(t, 'shared/framework/head.ts', "export { router } from '../routes.js'\n", 'framework-not-product', 'shared/routes', why)
  await refused(
    t,
    'shared/framework/location.ts',
    "import type { Theme } from '../theme.js'\nexport type { Theme }\n",
    'framework-not-product',
    'shared/theme',
    why,
  )
})

t.test('(b) the product reaches the framework only through its public entries', async (t) => {
  const why = /through its public entry/
  await refused(
    t,
    'client/pages/home.tsx',
    "export { Link } from '../framework/view/link.js'\n",
    'framework-through-its-entry',
    'client/framework/view/link',
    why,
  )
  await refused(
    t,
    'server/pages/items.ts',
    "export type { RequestSession } from '../framework/session.js'\n",
    'framework-through-its-entry',
    'server/framework/session',
    why,
  )
  await refused(
    t,
    'client/layouts/root.tsx',
    "export { route } from '../../shared/framework/route-table.js'\n",
    'framework-through-its-entry',
    'shared/framework/route-table',
    why,
  )
  await refused(
    t,
    'shared/theme.ts',
    "export { ErrorCode } from './framework/errors.js'\n",
    'framework-through-its-entry',
    'shared/framework/errors',
    why,
  )
  // The browser runtime's door is the browser entry's alone.
  await refused(
    t,
    'client/application.ts',
    "export { startClient } from './framework/start.js'\n",
    'framework-through-its-entry',
    'client/framework/start',
    why,
  )
  await refused(
    t,
    'client/entry.tsx',
    "export { startClient } from './framework/browser/start.js'\n",
    'framework-through-its-entry',
    'client/framework/browser/start',
    why,
  )
  await allowed(t, 'client/entry.tsx', "import { startClient } from './framework/start.js'\nvoid startClient\n")
  await allowed(t, 'client/pages/home.tsx', "export { Link } from '../framework/index.js'\nexport { route } from '../../shared/framework/index.js'\n")
  await allowed(t, 'server/main.ts', "export { runServer } from './framework/index.js'\n")
  // Tests are no product: they reach inside.
  await allowed(t, 'test/server/sessions.test.ts', "export type { RequestSession } from '../../server/framework/session.js'\n")
})

t.test('(c) server/ never imports the browser runtime', async (t) => {
  const why = /bundled for the browser only/
  await refused(
    t,
    'server/framework/render/render-page.tsx',
    "export { PageStore } from '../../../client/framework/browser/page-store.js'\n",
    'no-browser-runtime-on-server',
    'client/framework/browser/page-store',
    why,
  )
  await refused(
    t,
    'server/framework/app.ts',
    "export const start = () => import('../../client/framework/start.js')\n",
    'no-browser-runtime-on-server',
    'client/framework/start',
    why,
  )
  await allowed(t, 'server/framework/render/app-view.ts', "export { AppRoot } from '../../../client/framework/view/app-root.js'\n")
  await allowed(t, 'server/framework/application.ts', "export { definePage } from '../../client/framework/page-module.js'\n")
  await allowed(t, 'server/framework/render/render-page.tsx', "export type { ClientApplication } from '../../../client/framework/client-app.js'\n")
  await allowed(
    t,
    'server/application.ts',
    "export { clientApp } from '../client/application.js'\nexport { default } from '../client/pages/home.js'\n",
  )
})

t.test('(d) no server plugin imports another', async (t) => {
  const why = /What two plugins share lives outside plugins/
  await refused(
    t,
    'server/framework/plugins/actions.ts',
    "import type { RouteRateLimit } from './rate-limit.js'\nexport type { RouteRateLimit }\n",
    'plugins-stand-alone',
    'server/framework/plugins/rate-limit',
    why,
  )
  await refused(
    t,
    'server/framework/plugins/api.ts',
    "export { default } from '../plugins/errors.js'\n",
    'plugins-stand-alone',
    'server/framework/plugins/errors',
    why,
  )
  await allowed(t, 'server/framework/plugins/actions.ts', "export type { RouteRateLimit } from '../route-rate-limit.js'\n")
  await allowed(t, 'server/framework/app.ts', "export { default } from './plugins/rate-limit.js'\n")
})

t.test('(e) the framework does not import the product, but for the dev server’s SSR entry', async (t) => {
  const why = /The framework does not know the product/
  await refused(
    t,
    'client/framework/view/link.tsx',
    "export { router } from '../../../shared/routes.js'\n",
    'framework-not-product',
    'shared/routes',
    why,
  )
  await refused(
    t,
    'client/framework/browser/start.tsx',
    "export { clientApp } from '../../application.js'\n",
    'framework-not-product',
    'client/application',
    why,
  )
  await refused(t, 'server/framework/app.ts', "export { application } from '../application.js'\n", 'framework-not-product', 'server/application', why)
  await refused(
    t,
    'server/framework/run-server.ts',
    "export { default } from '../api/health.js'\n",
    'framework-not-product',
    'server/api/health',
    why,
  )
  // A template names every file its fixed part leads to.
  await refused(
    t,
    'server/framework/render/resolve-page.ts',
    'export const load = (id: string) => import(`../../pages/${id}.ts`)\n',
    'framework-not-product',
    'server/pages/*',
    why,
  )
  await allowed(t, 'server/framework/development/ssr-entry.ts', "export { application } from '../../application.js'\n")
  // A framework file of the same name is not the product's.
  await allowed(t, 'server/framework/app.ts', "export { defineServerApp } from './application.js'\nexport { default } from './plugins/api.js'\n")
})
