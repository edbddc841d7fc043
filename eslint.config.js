/**
 * ESLint (`npm run lint`, and `npm test` after the type check): typescript-eslint's
 * recommended rules and React's hook rules (docs/decisions/024-lint-and-format.md).
 * Formatting is Prettier's (.prettierrc.json): no rule here is about layout.
 */
import js from '@eslint/js'
import { defineConfig, globalIgnores } from 'eslint/config'
import reactHooks from 'eslint-plugin-react-hooks'
import tseslint from 'typescript-eslint'

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
])
