/**
 * The transpiled project `npm test` runs its files from (scripts/test-transpile.ts), made
 * for a small project of its own: each file where its import expects it, knowing the
 * source's location, the page loaders pointed at the `.js`, a broken file failing only
 * what imports it, and a new folder for any change.
 */
import { readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { newBuildDir } from '../helpers/build.js'
import { transpiledPath, transpileForTests } from '../../scripts/test-transpile.js'

const FILES: Record<string, string> = {
  'server/application.ts': 'export const load = (id: string) => import(`./pages/${id}.ts`)\nexport const where: string = import.meta.url\n',
  'server/pages/home.ts': 'const title: string = "Home"\nexport default { title }\n',
  'client/view.tsx': 'export function View({ name }: { name: string }) {\n  return <p>{name}</p>\n}\n',
  'test/holds-text.ts': 'export const text = "import(`../pages/${id}.ts`)"\nexport const dir = import.meta.dirname\n',
  'test/broken.ts': 'export const = 1\n',
}

function project(t: { teardown(fn: () => unknown): void }): string {
  const root = newBuildDir('transpile')
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  for (const [file, text] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
    writeFileSync(path.join(root, file), text)
  }
  return root
}

const load = (dir: string, file: string) => import(pathToFileURL(transpiledPath(dir, file)!).href)

t.test('each file runs where its imports expect it, knowing where its source is', async (t) => {
  const root = project(t)
  const dir = await transpileForTests(root)
  const application = await load(dir, 'server/application.ts')
  t.equal(application.where, pathToFileURL(path.join(root, 'server/application.ts')).href, "import.meta.url is the source's")
  t.same((await application.load('home')).default, { title: 'Home' }, 'the page loader imports the .js of pages/home.ts')
  const { View } = await load(dir, 'client/view.tsx')
  t.same(View({ name: 'Ann' }).props, { children: 'Ann' }, "JSX is react/jsx-runtime's")
  const text = await load(dir, 'test/holds-text.ts')
  t.equal(text.text, 'import(`../pages/${id}.ts`)', 'a test holding such an import as text keeps it')
  t.equal(text.dir, path.join(root, 'test'), "import.meta.dirname is the source's folder")
  await t.rejects(
    load(dir, 'test/broken.ts'),
    { name: 'SyntaxError', message: /^test\/broken\.ts: / },
    'a broken file fails what imports it, naming itself',
  )
  t.equal(transpiledPath(dir, 'test/.build/x.test.ts'), undefined, 'a copy of the project is not transpiled')
  t.equal(transpiledPath(dir, 'elsewhere/x.test.ts'), undefined, 'nor a file outside the folders')
})

t.test('the same sources reuse the folder; any change makes a new one', async (t) => {
  const root = project(t)
  const first = await transpileForTests(root)
  t.equal(await transpileForTests(root), first, 'unchanged: the same folder')
  writeFileSync(path.join(root, 'server/pages/home.ts'), 'export default { title: "Changed" }\n')
  const second = await transpileForTests(root)
  t.not(second, first, 'an edit: a new folder')
  t.match(readFileSync(transpiledPath(second, 'server/pages/home.ts')!, 'utf8'), 'Changed')
})
