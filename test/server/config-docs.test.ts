/**
 * README.md's "Configuration" table against the declarations
 * (server/framework/config/variables.ts, then the product's server/config.ts): one row per declared variable, in their order,
 * with the declaration's default and meaning. A difference fails naming the variable;
 * the fix is `npm run config:table -- --write`, or the declaration when the README had it right.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { declaredRows, readTable, renderTable, type Row } from '../../scripts/config-docs.js'
import { projectRoot } from '../helpers/build.js'

const FIX =
  "To fix: change the declaration in server/framework/config/variables.ts (the product's: server/config.ts) if the README had it right, " +
  "then run `npm run config:table -- --write` to rewrite README.md's table from the declarations."

const readme = readFileSync(path.join(projectRoot, 'README.md'), 'utf8')
const declared = declaredRows()

function rowsOf(markdown: string): Row[] {
  const table = readTable(markdown)
  if ('problem' in table) throw new Error(`README.md: ${table.problem}. ${FIX}`)
  return table.rows
}

t.test("the product's own variables are in the table after the framework's", async (t) => {
  const names = rowsOf(readme).map((row) => row.name)
  t.equal(names.at(-1), 'DEMO_ACCOUNT', 'server/config.ts declares it')
  t.ok(names.indexOf('DEMO_SLOW_MS') < names.indexOf('DEMO_ACCOUNT'))
  t.match(rowsOf(readme).at(-1)?.meaning, 'one or more `email:password` pairs separated by commas')
})

t.test('README.md has a row for every declared variable, with its default and meaning', async (t) => {
  const written = new Map(rowsOf(readme).map((row) => [row.name, row]))
  for (const variable of declared) {
    const row = written.get(variable.name)
    if (!row) {
      t.fail(`${variable.name} is declared but has no row in README.md's configuration table. ${FIX}`)
      continue
    }
    const differing = (['default', 'meaning'] as const).filter((column) => row[column] !== variable[column])
    if (differing.length === 0) t.pass(`${variable.name}: default and meaning as declared`)
    for (const column of differing) {
      // found: the README's cell; wanted: the declaration's.
      t.equal(
        row[column],
        variable[column],
        `${variable.name}: its ${column} in README.md differs from its declaration (diff: - the declaration, + README.md). ${FIX}`,
      )
    }
  }
})

t.test('README.md has no row for a variable that is not declared, and none twice', async (t) => {
  const names = new Set(declared.map((variable) => variable.name))
  const seen = new Set<string>()
  for (const row of rowsOf(readme)) {
    if (!names.has(row.name)) {
      t.fail(`${row.name} has a row in README.md's configuration table but no declaration: the server does not read it. ${FIX}`)
    }
    if (seen.has(row.name)) t.fail(`${row.name} has two rows in README.md's configuration table. ${FIX}`)
    seen.add(row.name)
  }
})

t.test("the rows are in the declarations' order", async (t) => {
  const names = declared.map((variable) => variable.name)
  const written = rowsOf(readme)
    .map((row) => row.name)
    .filter((name) => names.includes(name))
  t.same(
    written,
    names.filter((name) => written.includes(name)),
    `README.md lists the variables in another order. ${FIX}`,
  )
})

t.test('the table the script writes reads back as the declarations', async (t) => {
  t.same(rowsOf(`<!-- config-table -->\n${renderTable()}<!-- /config-table -->\n`), declared)
  // Padded columns (a formatter's) read the same.
  const padded = renderTable().replaceAll(' | ', '   |   ')
  t.same(rowsOf(`<!-- config-table -->\n${padded}<!-- /config-table -->\n`), declared)
})

t.test('a difference is reported by variable name', async (t) => {
  const changed = readme.replace(/^\| `PORT` \| `3000` \|/m, '| `PORT` | `8080` |')
  t.not(changed, readme)
  const row = rowsOf(changed).find((entry) => entry.name === 'PORT')
  t.equal(row?.default, '`8080`', 'the changed row is read as written, so the first test would name PORT')
  t.throws(() => rowsOf(readme.replace('<!-- config-table -->', '')), /README\.md: the configuration table is not between/)
})
