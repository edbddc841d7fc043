/**
 * README.md's "Configuration" table, written from the declarations
 * (server/framework/config/variables.ts): the table sits between the markers
 * `<!-- config-table -->` and `<!-- /config-table -->`, `npm run config:table` prints it
 * (scripts/config-table.ts) and `npm run config:table -- --write` rewrites it there.
 * test/server/config-docs.test.ts reads it back with `readTable` and fails, naming the
 * variable, where it and the declarations differ.
 */
import { config as productConfig } from '../server/config.js'
import { VARIABLES, defaultText, type Variable } from '../server/framework/config.js'

export const TABLE_START = '<!-- config-table -->'
export const TABLE_END = '<!-- /config-table -->'

/** One row of the table, each cell as Markdown; `name` without its backticks. */
export interface Row {
  readonly name: string
  readonly default: string
  readonly meaning: string
}

export const COLUMNS = ['variable', 'default', 'meaning'] as const

/** The rows the declarations make, in their order. */
export function declaredRows(): Row[] {
  return [...(VARIABLES as readonly Variable[]), ...productConfig.variables].map((variable) => ({
    name: variable.name,
    default: defaultText(variable),
    meaning: variable.meaning,
  }))
}

/** The table in Markdown, header first, ending in a newline. */
export function renderTable(rows: readonly Row[] = declaredRows()): string {
  const line = (cells: readonly string[]) => `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |\n`
  return line(COLUMNS) + line(COLUMNS.map(() => '---')) + rows.map((row) => line([`\`${row.name}\``, row.default, row.meaning])).join('')
}

/** Where the table is in a document: the text between the markers, or why it was not found. */
function locate(markdown: string): { start: number; end: number } | { problem: string } {
  const start = markdown.indexOf(TABLE_START)
  const end = markdown.indexOf(TABLE_END)
  if (start === -1 || end === -1 || end < start) {
    return { problem: `the configuration table is not between "${TABLE_START}" and "${TABLE_END}" lines` }
  }
  return { start: start + TABLE_START.length, end }
}

/** The cells of a table line, padding trimmed, `\|` unescaped. */
function cellsOf(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim().replaceAll('\\|', '|'))
}

/** The table's rows as written in the document (however its columns are padded), or why they cannot be read. */
export function readTable(markdown: string): { rows: Row[] } | { problem: string } {
  const place = locate(markdown)
  if ('problem' in place) return place
  const lines = markdown
    .slice(place.start, place.end)
    .split('\n')
    .filter((line) => line.trim() !== '')
  const [header, separator, ...body] = lines
  if (!header || cellsOf(header).join('|') !== COLUMNS.join('|') || !separator || !/^[|\s:-]+$/.test(separator)) {
    return { problem: `the table between the markers does not start with the header | ${COLUMNS.join(' | ')} | and its --- line` }
  }
  const rows: Row[] = []
  for (const line of body) {
    const cells = cellsOf(line)
    const name = /^`([A-Z0-9_]+)`$/.exec(cells[0] ?? '')?.[1]
    if (cells.length !== COLUMNS.length || !name) return { problem: `this line is not a row of three cells naming a variable: ${line}` }
    rows.push({ name, default: cells[1]!, meaning: cells[2]! })
  }
  return { rows }
}

/** The document with the table between the markers replaced by the declarations' own. */
export function rewriteTable(markdown: string): string {
  const place = locate(markdown)
  if ('problem' in place) throw new Error(`README.md: ${place.problem}`)
  return `${markdown.slice(0, place.start)}\n${renderTable()}${markdown.slice(place.end)}`
}
