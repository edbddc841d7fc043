/**
 * Which requests `npm run dev` hands to Vite (server/framework/development/vite-requests.ts):
 * the browser's modules, never the project's other files, however the path is written.
 * test/dev/dev-requests.test.ts checks the same against a running `npm run dev`.
 */
import path from 'node:path'
import t from 'tap'
import { servedByVite, targetPath } from '../../../server/framework/development/vite-requests.js'

const root = '/project'
const allowed = ['/project/client', '/project/shared', '/project/.cache/vite', '/project/node_modules']

t.test("the browser's modules and Vite's own go to Vite", async (t) => {
  for (const target of [
    '/client/entry.tsx',
    '/client/styles.css?direct',
    '/shared/routes.ts?t=123',
    '/.cache/vite/deps/react.js?v=abc',
    '/@fs/project/node_modules/react/index.js',
    '/@vite/client',
    '/@react-refresh',
    '/@id/__x00__virtual:thing',
  ]) {
    t.ok(servedByVite(target, root, allowed), target)
  }
})

t.test("the project's other files never do, however the path is written", async (t) => {
  for (const target of [
    '/server/main.ts',
    '/package.json',
    '/package.json?raw',
    '/README.md',
    '/.env',
    '/%73erver/main.ts',
    '/server%2Fmain.ts',
    '/client/../server/main.ts',
    '/client/%2e%2e/server/main.ts',
    '/@fs/project/server/main.ts',
    '/@fs/project/client/../package.json',
    '/@fs/etc/passwd',
    '/clientx/file.ts', // a folder whose name starts with an allowed one
    '/client%5c..%5cserver/main.ts',
    '/client/%E0%A4%A.ts', // a malformed escape
    'http://project/client/entry.tsx', // not a path
  ]) {
    t.notOk(servedByVite(target, root, allowed), target)
  }
})

t.test('the overlay\'s "open in editor" only from a page of this origin', async (t) => {
  const target = '/__open-in-editor?file=/project/client/pages/about.tsx'
  t.ok(servedByVite(target, root, allowed, 'same-origin'))
  for (const site of [undefined, 'cross-site', 'same-site', 'none']) t.notOk(servedByVite(target, root, allowed, site), String(site))
})

t.test('targetPath: decoded once, dot segments resolved', async (t) => {
  t.equal(targetPath('/a/%2e%2e/b?x'), '/b')
  t.equal(targetPath('/a/%252e%252e/b'), '/a/%2e%2e/b', 'decoded once, as Vite decodes')
  t.equal(targetPath('/a\u0000'), undefined)
  t.equal(path.posix.isAbsolute(targetPath('/x')!), true)
})
