/**
 * The import rules of docs/decisions/024-lint-and-format.md, as ESLint rules: one rule per
 * boundary, each told by eslint.config.js which files it applies to (`files`) and, in its
 * options, which repository paths those files may not import (`forbid`, less `allow`)
 * and why (`reason`, said in the message).
 *
 * Not `no-restricted-imports`: its patterns match the specifier as written, and a
 * relative specifier names a different file from each folder (`../api/x.js` is server/api/
 * from server/framework/, server/framework/api/ from its plugins/). This rule resolves
 * the specifier against the importing file first, then matches repository paths.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * A glob over repository paths, written without the file's extension: `*` is any part of
 * one name, `**` any number of folders (`client/framework/browser/**` is the folder and
 * all below it).
 */
function globToRegExp(glob) {
  let source = ''
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i]
    if (glob.startsWith('/**', i) && i + 3 === glob.length) {
      source += '(?:/.*)?'
      i += 2
    } else if (glob.startsWith('**/', i)) {
      source += '(?:.*/)?'
      i += 2
    } else if (glob.startsWith('**', i)) {
      source += '.*'
      i += 1
    } else if (char === '*') source += '[^/]*'
    else source += char.replace(/[.+?^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`^${source}$`)
}

/** `./view/link.js` written in TypeScript source names view/link.ts or .tsx: rules match the name without it. */
const SCRIPT_EXTENSION = /\.(?:[cm]?[jt]sx?)$/

/** The specifier as written, if it is one this rule can resolve (a template's `${...}` parts become `*`). */
function specifierOf(source) {
  if (!source) return undefined
  if (source.type === 'Literal' && typeof source.value === 'string') return source.value
  if (source.type === 'TemplateLiteral') return source.quasis.map((quasi) => quasi.value.cooked).join('*')
  return undefined
}

/** A rule that refuses imports of the repository paths its options name; `root` is the repository's folder. */
function boundaryRule(root, description) {
  return {
    meta: {
      type: 'problem',
      docs: { description },
      schema: [
        {
          type: 'object',
          properties: {
            forbid: { type: 'array', items: { type: 'string' } },
            allow: { type: 'array', items: { type: 'string' } },
            reason: { type: 'string' },
          },
          required: ['forbid', 'reason'],
          additionalProperties: false,
        },
      ],
      messages: { forbidden: '{{rule}}: this file may not import {{target}}. {{reason}}' },
    },
    create(context) {
      const { forbid, allow = [], reason } = context.options[0]
      const forbidden = forbid.map(globToRegExp)
      const allowed = allow.map(globToRegExp)
      const rule = context.id
      const from = path.dirname(context.filename)
      const check = (source) => {
        const specifier = specifierOf(source)
        // Only relative specifiers reach the repository's files (no path aliases here).
        if (!specifier?.startsWith('.')) return
        const target = path.relative(root, path.resolve(from, specifier)).split(path.sep).join('/').replace(SCRIPT_EXTENSION, '')
        if (!forbidden.some((glob) => glob.test(target)) || allowed.some((glob) => glob.test(target))) return
        context.report({ node: source, messageId: 'forbidden', data: { rule, target, reason } })
      }
      return {
        ImportDeclaration: (node) => check(node.source),
        ExportNamedDeclaration: (node) => check(node.source),
        ExportAllDeclaration: (node) => check(node.source),
        ImportExpression: (node) => check(node.source),
        // `import('../x.js').Type` in a type position.
        TSImportType: (node) => check(node.argument?.type === 'TSLiteralType' ? node.argument.literal : node.argument),
      }
    },
  }
}

/**
 * The version ESLint's cache (npm run lint) keys its results by: this file's own hash, so
 * that an edit to the rules lints every file again.
 */
const VERSION = createHash('sha256')
  .update(readFileSync(fileURLToPath(import.meta.url)))
  .digest('hex')
  .slice(0, 12)

/** The plugin, named `imports` in eslint.config.js, for the repository at `root`. */
export function importBoundaries(root) {
  return {
    meta: { name: 'import-boundaries', version: VERSION },
    rules: {
      'shared-runs-on-both-sides': boundaryRule(root, 'shared/ imports nothing from client/ or server/'),
      'framework-through-its-entry': boundaryRule(root, 'Product code reaches the framework only through its public entries'),
      'no-browser-runtime-on-server': boundaryRule(root, 'server/ never imports the browser runtime'),
      'plugins-stand-alone': boundaryRule(root, 'No server plugin imports another'),
      'framework-not-product': boundaryRule(root, 'The framework does not import the product'),
    },
  }
}
