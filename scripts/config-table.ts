/**
 * npm run config:table: prints README.md's "Configuration" table in Markdown, made from
 * the declarations (server/framework/config/variables.ts), to paste; with `--write`, it
 * rewrites the table in README.md itself, between its `<!-- config-table -->` and
 * `<!-- /config-table -->` markers. scripts/config-docs.ts does the work.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { renderTable, rewriteTable } from './config-docs.js'

const readme = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../README.md')

if (process.argv.includes('--write')) {
  const before = readFileSync(readme, 'utf8')
  const after = rewriteTable(before)
  if (after === before) {
    console.log('README.md: the configuration table already matches the declarations')
  } else {
    writeFileSync(readme, after)
    console.log('README.md: configuration table rewritten from server/framework/config/variables.ts')
  }
} else {
  process.stdout.write(renderTable())
}
