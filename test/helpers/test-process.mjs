/**
 * What a test file is started with when tap's runner runs it (`npm test -- --grep=...`:
 * tap's `node-arg` in package.json; `npm test` itself runs the files transpiled,
 * scripts/test-transpile.ts): tap is loaded first, and only then are tsx's ESM hooks
 * registered for the test's TypeScript.
 *
 * Plain Node, as test/helpers/build-process.mjs is: under tsx's hooks each of tap's
 * ES modules (about a hundred) is a round trip to the hooks' thread, about 0.25 s of
 * CPU more for every test file. The test file's own `import t from 'tap'` then finds
 * it loaded.
 */
await import('tap')
const { register } = await import('tsx/esm/api')
register()
