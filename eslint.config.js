/**
 * ESLint (`npm run lint`, and `npm test` after the type check): typescript-eslint's
 * recommended rules, React's hook rules, and the project's import rules
 * (docs/decisions/024-lint-and-format.md). Formatting is Prettier's (.prettierrc.json):
 * no rule here is about layout.
 */
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import js from '@eslint/js'
import { defineConfig, globalIgnores } from 'eslint/config'
import reactHooks from 'eslint-plugin-react-hooks'
import tseslint from 'typescript-eslint'
import { importBoundaries } from './scripts/lint/import-boundaries.js'

const imports = importBoundaries(path.dirname(fileURLToPath(import.meta.url)))

/** The product: the application built on the framework, one set of files per side. */
const PRODUCT = [
  'client/pages/**',
  'client/layouts/**',
  'client/application.ts',
  'client/entry.tsx',
  'server/pages/**',
  'server/layouts/**',
  'server/api/**',
  'server/application.ts',
  'server/main.ts',
  'shared/routes.ts',
  'shared/theme.ts',
]
/** The same files as import targets (the rules match repository paths without the extension). */
const PRODUCT_TARGETS = PRODUCT.map((file) => file.replace(/\.tsx?$/, ''))
const FRAMEWORK = ['client/framework/**', 'server/framework/**', 'shared/framework/**']

export default defineConfig([
  globalIgnores(['dist/', 'test/.build/', '.cache/', '.tap/', 'coverage/']),
  {
    files: ['**/*.{ts,tsx,js,mjs}'],
    extends: [js.configs.recommended, tseslint.configs.recommended],
    languageOptions: {
      // Plain .js and .mjs files are Node's (the configs, the test loader hook); TypeScript
      // knows the globals of .ts files, and typescript-eslint turns no-undef off there.
      globals: { console: 'readonly', process: 'readonly', URL: 'readonly' },
    },
    plugins: { imports },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A leading underscore is the code's way of saying a binding is unused on purpose:
      // a parameter kept for its position, a property taken out of a rest copy.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      // `catch {}` says "already gone is fine": a file removed that may not exist, a
      // process stopped that may have exited. Other empty blocks are still refused.
      'no-empty': ['error', { allowEmptyCatch: true }],
      // A `let` declared before the closures that read it and assigned once after them
      // (a timer set once the stream exists, the child process a signal handler stops)
      // cannot be a const declared there; the rule still wants every other single
      // assignment to be a const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Control characters are matched on purpose: redirect targets and upload names
      // that hold them are refused or cleaned. The rule is there for ones typed by
      // accident, which source written with \x escapes cannot hold.
      'no-control-regex': 'off',
      // Prettier prints the code, semicolon-free: a chain it breaks before `[` or `(`
      // (`request.parts(...)` then `[Symbol.asyncIterator]()`) is one expression, as it
      // was on one line. Two statements that would run together are printed as one
      // expression on one line, where the mistake shows; the rule only flags Prettier's own output.
      'no-unexpected-multiline': 'off',
      // `{}` is the type-level empty record: the default of "no actions, no files, no
      // layouts declared" in the route table's generics, and "no props" in
      // ComponentType<{}>. Record<never, never> would be the same type under a longer name.
      '@typescript-eslint/no-empty-object-type': ['error', { allowObjectTypes: 'always' }],
    },
  },
  {
    // `any` is the framework's "whatever instantiation" in generic positions
    // (Router<any, any>, PageModule<any>), where `unknown` breaks variance, and the tests'
    // type for parsed JSON they pick at. strict mode already refuses an implicit any;
    // product code, which has none, keeps the rule.
    files: ['client/framework/**', 'server/framework/**', 'shared/framework/**', 'test/**', 'scripts/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The rules of hooks, not the React Compiler rules of the plugin's recommended preset:
    // they check that code is safe for the compiler to memoize, which this project does
    // not run, and compiling every component made the lint a third slower. What they
    // flagged was deliberate (docs/decisions/024-lint-and-format.md).
    files: ['**/*.tsx', 'client/**/*.ts'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },

  // The import rules. Each names its reason in the message it fails with.
  {
    files: ['shared/**'],
    rules: {
      'imports/shared-runs-on-both-sides': [
        'error',
        {
          forbid: ['client/**', 'server/**'],
          reason: 'shared/ runs in the browser and on the server alike: what it imports must too. Move what both sides need into shared/.',
        },
      ],
    },
  },
  {
    files: PRODUCT,
    rules: {
      'imports/framework-through-its-entry': [
        'error',
        {
          forbid: FRAMEWORK,
          allow: ['*/framework/index'],
          reason:
            "Product code reaches the framework through its public entry (client/, server/ or shared/framework/index.js), so what is behind it stays the framework's to change. Export what the product needs from the entry.",
        },
      ],
    },
  },
  {
    // The browser entry alone also starts the browser runtime, through its own door.
    files: ['client/entry.tsx'],
    rules: {
      'imports/framework-through-its-entry': [
        'error',
        {
          forbid: FRAMEWORK,
          allow: ['*/framework/index', 'client/framework/start'],
          reason:
            "Product code reaches the framework through its public entry (client/, server/ or shared/framework/index.js; the browser entry also client/framework/start.js), so what is behind it stays the framework's to change.",
        },
      ],
    },
  },
  {
    files: ['server/**'],
    rules: {
      'imports/no-browser-runtime-on-server': [
        'error',
        {
          forbid: ['client/framework/browser/**', 'client/framework/start'],
          reason:
            'The browser runtime (client/framework/browser/, client/framework/start.ts) touches window and history and is bundled for the browser only. The server renders with client/framework/view/, page-module, client-app and the product pages.',
        },
      ],
    },
  },
  {
    files: ['server/framework/plugins/**'],
    rules: {
      'imports/plugins-stand-alone': [
        'error',
        {
          forbid: ['server/framework/plugins/**'],
          reason:
            'Each server plugin is registered on its own and can be read, tested and removed alone. What two plugins share lives outside plugins/ (server/framework/, its render/ or uploads/).',
        },
      ],
    },
  },
  {
    files: FRAMEWORK,
    // The dev server's SSR entry loads the product's server/application.ts by convention,
    // as server/main.ts does in production: the one place the framework names the product.
    ignores: ['server/framework/development/ssr-entry.ts'],
    rules: {
      'imports/framework-not-product': [
        'error',
        {
          forbid: PRODUCT_TARGETS,
          reason:
            'The framework does not know the product: the product hands it its routes, pages and layouts (defineClientApp, defineServerApp). Take what is needed as a parameter.',
        },
      ],
    },
  },
])
